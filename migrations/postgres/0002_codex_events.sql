-- Schema version 2: a Codex event_msg user_message or agent_message that
-- no response item of its turn repeats is a message of its own (SPEC §3.5,
-- SQLite's migration 10): the next `grove index` of each source reads its
-- Codex files whole again.
UPDATE sessions SET stat_key = 0, first_message = NULL WHERE dialect = 'codex';
