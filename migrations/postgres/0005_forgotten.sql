-- Schema version 5 (SQLite's migration 13): the session files `grove
-- forget` removed from the index (SPEC §11), per source, each with the
-- file's identity when it was forgotten (stat_key, committed_len and the
-- CRC-32s of the first and last min(4096, committed_len) committed bytes).
CREATE TABLE IF NOT EXISTS forgotten (
  source        TEXT   COLLATE "C" NOT NULL,
  path          TEXT   COLLATE "C" NOT NULL,
  session_id    TEXT   COLLATE "C" NOT NULL,
  dialect       TEXT   COLLATE "C" NOT NULL,
  workspace     TEXT   COLLATE "C" NOT NULL,
  stat_key      BIGINT NOT NULL,
  committed_len BIGINT NOT NULL,
  head_crc      BIGINT NOT NULL,
  tail_crc      BIGINT NOT NULL,
  forgotten_ms  BIGINT NOT NULL,
  PRIMARY KEY (source, path)
);
