-- Schema version 10: a Codex event_msg user_message or agent_message that
-- no response item of its turn repeats is a message of its own (SPEC §3.5):
-- role user or assistant, search text, a first message. An older grove
-- stored every such event as a copy (its payload type as role, no text).
-- stat_key 0 makes the next `grove index` look at every Codex file, and a
-- NULL first_message makes it read the file whole, deciding again.
UPDATE sessions SET stat_key = 0, first_message = NULL WHERE dialect = 'codex';
