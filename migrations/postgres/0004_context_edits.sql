-- Schema version 4 (SQLite's migration 12): an index of pi 1.x's
-- context_edit entries alone, by which grove search finds the sessions
-- whose active path holds one (SPEC §4.1) without scanning any session's
-- entries.
CREATE INDEX IF NOT EXISTS entries_context_edits ON entries(sid) WHERE type = 'context_edit';
