-- Schema version 7 (SQLite's migration 15): a session whose file is gone
-- stays in the index, marked gone, its bodies read from the committed
-- bytes the index holds (file_bytes, SPEC §10, §11).
ALTER TABLE sessions ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;
