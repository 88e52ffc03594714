-- Schema version 3: incremental refresh and rebuild (issue 5, SPEC §2, §6).
--
-- A changed file whose first committed bytes and last committed bytes are
-- still those the index saw, on the same device and inode, and no shorter
-- than its committed length, grew by appending: it is read only from
-- committed_len on. The fingerprints are CRC-32s of those two windows.
-- Rows of schema 2 keep resumable = 0, so their next change is read whole.

ALTER TABLE sessions ADD COLUMN head_crc  INTEGER NOT NULL DEFAULT 0; -- CRC-32 of the first min(4096, committed_len) bytes
ALTER TABLE sessions ADD COLUMN tail_crc  INTEGER NOT NULL DEFAULT 0; -- CRC-32 of the last min(4096, committed_len) committed bytes
ALTER TABLE sessions ADD COLUMN resumable INTEGER NOT NULL DEFAULT 0; -- 1 when a read may go on at committed_len (jsonl.Result.Resumable)
ALTER TABLE sessions ADD COLUMN min_ts_ms INTEGER;                    -- the earliest entry time, NULL when no entry has one
ALTER TABLE sessions ADD COLUMN max_ts_ms INTEGER;                    -- the latest entry time, NULL when no entry has one
ALTER TABLE sessions ADD COLUMN header_ms INTEGER;                    -- the pi header's time, NULL when it has none

-- stat_key is a hash of the file's size, mtime, device and inode as
-- indexed (index.StatKey), or 0 when that stat cannot be trusted (the
-- file changed within index.RacyWindowMs of being read). A refresh reads
-- (path, stat_key) of every session from this index alone, and stats each
-- file once.
ALTER TABLE sessions ADD COLUMN stat_key INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_stat_key ON sessions(path, stat_key);
CREATE INDEX sessions_not_ok ON sessions(path) WHERE state != 'ok';

-- What `grove index` was asked to read, so that `grove rebuild` with no
-- arguments reads the same: kind 'root' (a directory) or 'file'.
CREATE TABLE sources (
  kind TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (kind, path)
) WITHOUT ROWID;
