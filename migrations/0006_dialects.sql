-- Schema version 6: the messages, claude and codex dialects (SPEC §3.4–3.6).
--
-- entries.side: 1 for a Claude Code entry with isSidechain: true. The
-- active leaf of a claude session is the leaf on the highest line among
-- those that are not sidechains (all of them when every leaf is one).

ALTER TABLE entries ADD COLUMN side INTEGER NOT NULL DEFAULT 0;

-- entries.copy_crc: how a copy of the entry in another file is known
-- (search's also_in), where the line's own CRC cannot tell: a Claude Code
-- fork keeps the uuid and the message but re-stamps sessionId, so it is
-- the CRC-32 of the message member (found by uuid); a Codex fork replays
-- the parent's items with new timestamps and line numbers, so it is the
-- CRC-32 of the payload (found by this index, within one family of forked
-- sessions). 0 for the other dialects, whose copies are byte-identical.
ALTER TABLE entries ADD COLUMN copy_crc INTEGER NOT NULL DEFAULT 0;
CREATE INDEX entries_by_copy ON entries(copy_crc) WHERE copy_crc != 0;

-- An older grove read every file that is not pi's as plain, so Claude
-- Code, Codex and messages files were stored as damaged plain sessions.
-- A NULL first_message makes the next `grove index` read them whole.
UPDATE sessions SET stat_key = 0, first_message = NULL WHERE dialect = 'plain';
