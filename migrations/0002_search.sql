-- Schema version 2: search (SPEC §7).
--
-- The full-text index is contentless: it keeps tokens and positions, never
-- a second copy of the text, which is read back from the JSONL by offset
-- for snippets. Its rowid is an entry's doc number, (timestamp in seconds
-- << 31) | (a counter mod 2^31), so that the newest matches come first by
-- walking rowids downwards and a page of hits is found without ranking
-- every match.
--
-- Older indexes hold no search text, so their rows are dropped here: the
-- next `grove index` reads every file again. The index is only a cache.

DELETE FROM labels;
DELETE FROM diagnostics;
DELETE FROM entries;
DELETE FROM sessions;

ALTER TABLE entries ADD COLUMN doc INTEGER NOT NULL DEFAULT 0;    -- the entry's rowid in entry_text
ALTER TABLE entries ADD COLUMN active INTEGER NOT NULL DEFAULT 0; -- 1 when on the path to the active leaf
CREATE INDEX entries_by_doc ON entries(doc);
CREATE INDEX entries_by_entry_id ON entries(entry_id);            -- fork copies and id lookups across sessions

CREATE VIRTUAL TABLE entry_text USING fts5(
  text,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO counters (name, value) VALUES ('doc', 0);
