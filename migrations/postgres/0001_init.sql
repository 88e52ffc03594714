-- grove's index in PostgreSQL (SPEC §10): the tables of the SQLite schema
-- (migrations/*.sql, version 9) with PostgreSQL types, sessions keyed by
-- (source, path), search text as tsvector rows, and each session file's
-- committed bytes. Text sorts byte-wise (COLLATE "C"), as SQLite's does,
-- so that every listing comes out in the same order on both.

CREATE TABLE sessions (
  sid            BIGSERIAL PRIMARY KEY,
  source         TEXT    COLLATE "C" NOT NULL,          -- --source of the grove that read the file (default: its host name)
  path           TEXT    COLLATE "C" NOT NULL,          -- absolute path of the JSONL file on that source
  session_id     TEXT    COLLATE "C" NOT NULL,
  dialect        TEXT    COLLATE "C" NOT NULL,
  version        INTEGER NOT NULL DEFAULT 0,
  workspace      TEXT    COLLATE "C" NOT NULL DEFAULT '',
  name           TEXT    COLLATE "C" NOT NULL DEFAULT '',
  parent_session TEXT    COLLATE "C" NOT NULL DEFAULT '',
  created_ms     BIGINT,
  modified_ms    BIGINT,
  entries        INTEGER NOT NULL,
  leaves         INTEGER NOT NULL,
  lines          INTEGER NOT NULL,
  state          TEXT    COLLATE "C" NOT NULL,
  active_leaf    TEXT    COLLATE "C",
  duplicate_id   TEXT    COLLATE "C",
  file_size      BIGINT  NOT NULL,
  file_mtime_ns  BIGINT  NOT NULL,
  file_dev       BIGINT  NOT NULL,
  file_ino       BIGINT  NOT NULL,
  committed_len  BIGINT  NOT NULL,
  indexed_at_ms  BIGINT  NOT NULL,
  head_crc       BIGINT  NOT NULL DEFAULT 0,
  tail_crc       BIGINT  NOT NULL DEFAULT 0,
  resumable      INTEGER NOT NULL DEFAULT 0,
  min_ts_ms      BIGINT,
  max_ts_ms      BIGINT,
  header_ms      BIGINT,
  stat_key       BIGINT  NOT NULL DEFAULT 0,
  first_message  TEXT    COLLATE "C",
  activity_ms    BIGINT,
  UNIQUE (source, path)
);
CREATE INDEX sessions_by_session_id ON sessions(session_id);
CREATE INDEX sessions_by_workspace ON sessions(workspace);
CREATE INDEX sessions_by_path ON sessions(path);
CREATE INDEX sessions_named ON sessions(dialect) WHERE name != '';

CREATE TABLE entries (
  sid        BIGINT  NOT NULL,
  seq        INTEGER NOT NULL,
  entry_id   TEXT    COLLATE "C" NOT NULL,
  parent_id  TEXT    COLLATE "C",
  type       TEXT    COLLATE "C" NOT NULL,
  role       TEXT    COLLATE "C",
  ts_ms      BIGINT,
  line       INTEGER NOT NULL,
  "offset"   BIGINT  NOT NULL,
  length     INTEGER NOT NULL,
  crc        BIGINT  NOT NULL,
  doc        BIGINT  NOT NULL DEFAULT 0,
  active     INTEGER NOT NULL DEFAULT 0,
  first_kept TEXT    COLLATE "C",
  side       INTEGER NOT NULL DEFAULT 0,
  copy_crc   BIGINT  NOT NULL DEFAULT 0,
  run        INTEGER,
  pos        INTEGER,
  PRIMARY KEY (sid, seq)
);
CREATE INDEX entries_by_id ON entries(sid, entry_id);
CREATE INDEX entries_by_parent ON entries(sid, parent_id);
CREATE INDEX entries_by_doc ON entries(doc);
CREATE INDEX entries_by_entry_id ON entries(entry_id);
CREATE INDEX entries_by_copy ON entries(copy_crc) WHERE copy_crc != 0;
CREATE INDEX entries_by_run ON entries(sid, run, pos);

CREATE TABLE diagnostics (
  sid      BIGINT  NOT NULL,
  seq      INTEGER NOT NULL,
  severity TEXT    COLLATE "C" NOT NULL,
  code     TEXT    COLLATE "C" NOT NULL,
  line     INTEGER NOT NULL,
  "offset" BIGINT  NOT NULL,
  message  TEXT    COLLATE "C" NOT NULL,
  PRIMARY KEY (sid, seq)
);

CREATE TABLE labels (
  sid       BIGINT NOT NULL,
  target_id TEXT   COLLATE "C" NOT NULL,
  label     TEXT   COLLATE "C" NOT NULL,
  PRIMARY KEY (sid, target_id)
);

-- Search text: grove's own tokens (index/pgtext.go) with their positions.
-- An entry whose text is too long for one tsvector (1 MB, 16,383
-- positions) has several chunks, overlapping so that a phrase lies whole
-- in one; single is true for an entry of one chunk.
CREATE TABLE entry_text (
  doc   BIGINT  NOT NULL,
  chunk INTEGER NOT NULL,
  single BOOLEAN NOT NULL,
  tsv   TSVECTOR NOT NULL,
  PRIMARY KEY (doc, chunk)
);
-- Two partial GIN indexes: with one over all rows, a phrase re-read the
-- positions of long entries' rows before dropping them; with a b-tree on
-- the long ones, every query read their tsvectors (index/pgtext.go).
CREATE INDEX entry_text_one ON entry_text USING gin (tsv) WHERE single;
CREATE INDEX entry_text_multi ON entry_text USING gin (tsv) WHERE NOT single;

-- The committed bytes of each session file (SPEC §2, §10): whole lines,
-- in pieces of about 1 MB, appended as the file grows. A file whose
-- committed prefix changed has its pieces deleted and stored again.
CREATE TABLE file_bytes (
  source   TEXT   COLLATE "C" NOT NULL,
  path     TEXT   COLLATE "C" NOT NULL,
  "offset" BIGINT NOT NULL,           -- of data's first byte in the file
  data     BYTEA  NOT NULL,
  PRIMARY KEY (source, path, "offset")
);
ALTER TABLE file_bytes ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE TABLE counters (
  name  TEXT COLLATE "C" PRIMARY KEY,
  value BIGINT NOT NULL
);
INSERT INTO counters (name, value) VALUES ('doc', 0);

-- The roots each source's grove reads (grove index DIR, grove watch).
CREATE TABLE sources (
  source TEXT COLLATE "C" NOT NULL,
  kind   TEXT COLLATE "C" NOT NULL,
  path   TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (source, kind, path)
);
