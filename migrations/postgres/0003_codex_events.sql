-- Schema version 3 (SQLite's migration 11): a Codex event_msg text that no
-- response item of its turn repeats is a message of its own (SPEC §3.5),
-- and any line that can only be one agent's decides a file's dialect
-- (SPEC §3): the next `grove index` of each source reads its Codex and
-- plain files whole again.
UPDATE sessions SET stat_key = 0, first_message = NULL WHERE dialect IN ('codex', 'plain');
