-- Schema version 1: sessions, their entries (tree edges and file positions,
-- no message bodies), diagnostics and labels. SPEC §6.

CREATE TABLE sessions (
  sid            INTEGER PRIMARY KEY,
  path           TEXT    NOT NULL UNIQUE,      -- absolute path of the JSONL file
  session_id     TEXT    NOT NULL,             -- pi header id, or the file name without .jsonl (§3.3)
  dialect        TEXT    NOT NULL,             -- 'plain' or 'pi'
  version        INTEGER NOT NULL DEFAULT 0,   -- pi header version, 0 for plain
  workspace      TEXT    NOT NULL DEFAULT '',  -- §3.3
  name           TEXT    NOT NULL DEFAULT '',  -- last non-empty session_info name
  parent_session TEXT    NOT NULL DEFAULT '',
  created_ms     INTEGER,                      -- header time, else the first entry's
  modified_ms    INTEGER,                      -- the latest entry time, else the file's mtime
  entries        INTEGER NOT NULL,
  leaves         INTEGER NOT NULL,
  lines          INTEGER NOT NULL,             -- committed lines, blank included
  state          TEXT    NOT NULL,             -- 'ok', 'needs-repair', 'damaged'
  active_leaf    TEXT,                         -- id of the last entry in file order
  duplicate_id   TEXT,                         -- first id seen twice in file order (§4 rule 1)
  file_size      INTEGER NOT NULL,
  file_mtime_ns  INTEGER NOT NULL,
  file_dev       INTEGER NOT NULL,
  file_ino       INTEGER NOT NULL,
  committed_len  INTEGER NOT NULL,             -- bytes up to and including the last LF
  indexed_at_ms  INTEGER NOT NULL
);
CREATE INDEX sessions_by_session_id ON sessions(session_id);
CREATE INDEX sessions_by_workspace ON sessions(workspace);

CREATE TABLE entries (
  sid        INTEGER NOT NULL,
  seq        INTEGER NOT NULL,   -- 0-based position among the session's entries, file order
  entry_id   TEXT    NOT NULL,
  parent_id  TEXT,               -- NULL for a root
  type       TEXT    NOT NULL,
  role       TEXT,
  ts_ms      INTEGER,            -- NULL when the timestamp was unreadable
  line       INTEGER NOT NULL,   -- physical line number
  offset     INTEGER NOT NULL,   -- byte offset of the line's JSON in the file
  length     INTEGER NOT NULL,   -- bytes of the line without its LF
  crc        INTEGER NOT NULL,   -- CRC-32 (IEEE) of those bytes: a changed file is noticed
  PRIMARY KEY (sid, seq)
) WITHOUT ROWID;
CREATE INDEX entries_by_id ON entries(sid, entry_id);
CREATE INDEX entries_by_parent ON entries(sid, parent_id);

CREATE TABLE diagnostics (
  sid      INTEGER NOT NULL,
  seq      INTEGER NOT NULL,
  severity TEXT    NOT NULL,     -- 'error' or 'warning'
  code     TEXT    NOT NULL,
  line     INTEGER NOT NULL,
  offset   INTEGER NOT NULL,
  message  TEXT    NOT NULL,
  PRIMARY KEY (sid, seq)
) WITHOUT ROWID;

CREATE TABLE labels (
  sid       INTEGER NOT NULL,
  target_id TEXT    NOT NULL,
  label     TEXT    NOT NULL,    -- the last label line for the target wins; cleared labels are absent
  PRIMARY KEY (sid, target_id)
) WITHOUT ROWID;
