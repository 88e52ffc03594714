-- Schema version 7: bulk writes FTS5 can take in one stream (issue 16, SPEC §7).
--
-- FTS5 flushes its pending terms into a new segment whenever they pass
-- the table's hashsize (1 MB by default). A batch's search text is
-- inserted at its commit in rowid order (index.Batch): with room for a
-- batch's terms it becomes one segment instead of dozens that are merged
-- again later. The setting lives in the table's own config and changes no
-- row.
INSERT INTO entry_text (entry_text, rank) VALUES ('hashsize', 33554432);
