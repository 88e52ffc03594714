-- Schema version 5: what pi's /resume list shows (issue 13, SPEC §3.2, §8).
--
-- first_message: the first user message's text as `grove sessions` shows
-- it (terminal escapes removed, whitespace runs made one space, at most
-- 200 characters); '' when the session has none. NULL means the file has
-- not been read since this migration: the next `grove index` reads it
-- whole, and until then `sessions` answers null.
--
-- activity_ms: the latest time of a user or assistant message with
-- content (the message's own timestamp when it is a number, else the
-- entry's), NULL when there is none. modified_ms is activity_ms, else the
-- pi header's time, else (plain files) the latest entry time, else the
-- file's mtime. An append can only make activity_ms later, so an
-- incremental refresh keeps it right.

ALTER TABLE sessions ADD COLUMN first_message TEXT;
ALTER TABLE sessions ADD COLUMN activity_ms INTEGER;

-- Sessions indexed by an older grove lack both, and their names followed
-- the old rule (the last non-empty one; now a blank session_info clears
-- it). Their file facts stay, so every command still answers from them;
-- stat_key 0 makes the next `grove index` look at each file, and a NULL
-- first_message makes it read the file whole.
UPDATE sessions SET stat_key = 0;

-- Until then, modified follows the new rule as well as the index can
-- tell without the files: entry times stand in for the messages' own.
UPDATE sessions SET modified_ms = coalesce(
  (SELECT max(e.ts_ms) FROM entries e
    WHERE e.sid = sessions.sid AND e.type = 'message' AND e.role IN ('user', 'assistant') AND e.ts_ms > 0),
  CASE WHEN dialect = 'pi' THEN nullif(header_ms, 0) ELSE max_ts_ms END,
  modified_ms);
