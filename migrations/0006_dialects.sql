-- Schema version 6: the messages, claude and codex dialects (SPEC §3.4–3.6).
--
-- entries.side: 1 for a Claude Code entry with isSidechain: true. The
-- active leaf of a claude session is the leaf on the highest line among
-- those that are not sidechains (all of them when every leaf is one).

ALTER TABLE entries ADD COLUMN side INTEGER NOT NULL DEFAULT 0;

-- An older grove read every file that is not pi's as plain, so Claude
-- Code, Codex and messages files were stored as damaged plain sessions.
-- A NULL first_message makes the next `grove index` read them whole.
UPDATE sessions SET stat_key = 0, first_message = NULL WHERE dialect = 'plain';
