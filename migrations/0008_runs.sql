-- Schema version 8: linear runs, so a path steps over the runs between
-- branch points rather than over every entry (SPEC §4, §6; issue 16).
--
-- entries.run is the seq of the head of the entry's run, entries.pos its
-- place in the run (0 for the head). An entry continues its parent's run
-- (run = the parent's, pos = the parent's + 1) when its parent — the first
-- entry with that id — comes earlier in the file, and no earlier entry
-- names that id as its parent; otherwise it heads a run of its own
-- (run = its seq, pos = 0). The entries of a run are thus a chain, each
-- the child of the one before, and the path to an entry is its run up to
-- its pos, then the path to its run head's parent.
--
-- Sessions indexed before this version keep run and pos NULL: their paths
-- are answered by the walk over every entry, as before, and an append to
-- such a session leaves its new entries NULL too, so a session never mixes
-- the two; its next whole read (`grove index --force`, `grove rebuild`, or
-- a change that makes `grove index` read the file again) fills them in.
-- Nothing is re-read at upgrade: an old index answers exactly as before,
-- only slower at depth.

ALTER TABLE entries ADD COLUMN run INTEGER;
ALTER TABLE entries ADD COLUMN pos INTEGER;
CREATE INDEX entries_by_run ON entries(sid, run, pos);
