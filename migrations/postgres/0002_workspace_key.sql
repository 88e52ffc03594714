-- Schema version 2 of a team's index: each session's workspace as the
-- workspace rule compares it (SPEC §3.3, index.WorkspaceKey), as in
-- SQLite's version 10: a Windows path (a drive letter, a colon and "\" or
-- "/" or nothing; or \\server\share) with "/" for every "\" and the drive
-- letter in upper case, any other workspace as it is. Indexed, and compared
-- byte-wise (COLLATE "C"), so that `--workspace DIR` is one range of the
-- index. grove writes the key with every session it indexes; the rows made
-- before this version get it here, by the same rule.
ALTER TABLE sessions ADD COLUMN workspace_key TEXT COLLATE "C" NOT NULL DEFAULT '';
UPDATE sessions SET workspace_key = CASE
  WHEN workspace ~ '^[A-Za-z]:([\\/]|$)'
    THEN upper(substr(workspace, 1, 1)) || replace(substr(workspace, 2), '\', '/')
  WHEN workspace ~ '^\\\\[^\\/]'
    THEN replace(workspace, '\', '/')
  ELSE workspace END;
CREATE INDEX sessions_by_workspace_key ON sessions(workspace_key);
