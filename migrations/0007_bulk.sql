-- Schema version 7: bulk writes FTS5 can take in one stream, and named
-- sessions found by an index (issue 16, SPEC §7).
--
-- FTS5 flushes its pending terms into a new segment whenever they pass
-- the table's hashsize (1 MB by default). A batch's search text is
-- inserted at its commit in rowid order (index.Batch): with room for a
-- batch's terms it becomes one segment instead of dozens that are merged
-- again later. The setting lives in the table's own config and changes no
-- row.
INSERT INTO entry_text (entry_text, rank) VALUES ('hashsize', 33554432);

-- Every search looks for Claude Code sessions whose name matches the
-- query (a title is no entry); this finds those with a name without
-- reading every session row (28 % of a search process on 10,000 pi
-- sessions).
CREATE INDEX IF NOT EXISTS sessions_named ON sessions(dialect) WHERE name != '';
