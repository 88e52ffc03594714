-- Schema version 12: branch kinds (SPEC §4.2), decided when a file is read
-- (jsonl.DecideKinds) and stored, so that listings of real leaves and real
-- branch points cost nothing extra.
--
-- entries.kind is the entry's kind as a child of a branch point, NULL for
-- branch (every entry of a pi, plain, Codex or messages file);
-- entries.path_kind is the first kind other than branch on the path from
-- a root down to the entry (its own included), NULL when there is none:
-- a leaf is real when it is NULL, a branch point when two or more of its
-- children have kind NULL. sessions.real_leaves counts the real leaves,
-- NULL when every leaf is real.
--
-- Claude Code files are read whole again at the next `grove index`
-- (stat_key 0 makes it look at the file, a NULL first_message makes it
-- read the whole file), which fills the kinds in; until then they read as
-- branch, as before.
ALTER TABLE entries ADD COLUMN kind TEXT;
ALTER TABLE entries ADD COLUMN path_kind TEXT;
ALTER TABLE sessions ADD COLUMN real_leaves INTEGER;
UPDATE sessions SET stat_key = 0, first_message = NULL WHERE dialect = 'claude';
