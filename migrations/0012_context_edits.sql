-- Schema version 12: pi 1.x's context_edit entries change what the model
-- sees of earlier entries (SPEC §4.1), and grove search marks the hits an
-- edit on their session's active path changed. This index holds those
-- entries alone (sessions have few, most none), so that search finds the
-- sessions to look at without scanning any session's entries. Nothing is
-- read again: the entries are stored already.
CREATE INDEX IF NOT EXISTS entries_context_edits ON entries(sid) WHERE type = 'context_edit';
