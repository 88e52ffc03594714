-- Schema version 4: model context (issue 7, SPEC §4.1).
--
-- A compaction's firstKeptEntryId, as the reader resolved it: for a pi
-- version 1 file it comes from firstKeptEntryIndex through the mapping of
-- SPEC §3.2, which needs the whole file before the compaction and so
-- cannot be worked out again from one line read back by offset.
-- NULL for every other entry, and for a compaction that keeps none.

ALTER TABLE entries ADD COLUMN first_kept TEXT;

-- Compactions indexed by an older grove have no first_kept. Only version 1
-- files need it from the index (later versions say it on the line itself),
-- so make the next `grove index` read them whole again: stat_key 0 and an
-- impossible mtime never match the file's stat.
UPDATE sessions SET stat_key = 0, file_mtime_ns = -1 WHERE dialect = 'pi' AND version = 1;
