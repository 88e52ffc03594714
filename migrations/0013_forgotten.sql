-- Schema version 13: the session files `grove forget` removed from the
-- index (SPEC §11), each with the file's identity when it was forgotten:
-- its stat (stat_key, 0 when it must be looked at) and its committed
-- bytes (committed_len, and the CRC-32s of the first and last
-- min(4096, committed_len) of them). A refresh leaves such a file out
-- while its committed bytes are those; a file with other committed bytes
-- is read again and its row goes. IF NOT EXISTS: an index taken back to
-- an older version by hand (the migration tests) may still have it.
CREATE TABLE IF NOT EXISTS forgotten (
  path          TEXT    NOT NULL PRIMARY KEY,
  session_id    TEXT    NOT NULL,
  dialect       TEXT    NOT NULL,
  workspace     TEXT    NOT NULL,
  stat_key      INTEGER NOT NULL,
  committed_len INTEGER NOT NULL,
  head_crc      INTEGER NOT NULL,
  tail_crc      INTEGER NOT NULL,
  forgotten_ms  INTEGER NOT NULL
) WITHOUT ROWID;
