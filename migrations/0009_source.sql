-- Schema version 9: every session belongs to a source, the machine (or
-- any name given with --source) whose files it was read from (SPEC §10).
-- A SQLite index holds one machine's files, so its sessions stay keyed by
-- path; a row made before this version has '' until grove next writes the
-- index, which gives such rows its source (index.DB.ClaimSources).
ALTER TABLE sessions ADD COLUMN source TEXT NOT NULL DEFAULT '';
