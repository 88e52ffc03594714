-- Schema version 4 (SQLite's migration 12): branch kinds (SPEC §4.2).
-- entries.kind is an entry's kind as a child of a branch point (NULL:
-- branch), entries.path_kind the first kind other than branch on its path
-- (NULL: on a real branch), sessions.real_leaves the number of real leaves
-- (NULL: every leaf is real). The next `grove index` of each source reads
-- its Claude Code files whole again, which fills them in.
ALTER TABLE entries ADD COLUMN kind TEXT;
ALTER TABLE entries ADD COLUMN path_kind TEXT;
ALTER TABLE sessions ADD COLUMN real_leaves INTEGER;
UPDATE sessions SET stat_key = 0, first_message = NULL WHERE dialect = 'claude';
