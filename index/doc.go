// Package index is grove's SQLite index (SPEC §6): schema migrations from
// package migrations, writes through Batch and SessionWriter (a session file
// whole, or the lines appended to it, each under a savepoint; small files
// share a transaction), Dump (a canonical text form for comparing indexes),
// RestoreFrom (rebuild's swap), the queries that answer paths, leaves (with
// their depth and the last user message on their path) and branch points
// with recursive CTEs, and full-text search (SPEC §7): ParseQuery,
// DB.Search and Snippet.
//
// The index holds tree edges, types, roles, timestamps, line numbers, byte
// offsets, a CRC-32 per line and a compaction's resolved firstKeptEntryId
// (schema 4: pi version 1 maps it from firstKeptEntryIndex, which one line
// read back cannot), never message bodies: it can be deleted and rebuilt
// from the files at any time.
//
// # Caveats
//
//   - The recursive queries pin their join order (CROSS JOIN) and index
//     (INDEXED BY); see pathQuery for why. TestPath_QueryPlan guards it.
//   - Each entry's linear run and position in it (schema 8, set as the
//     entry is written) let Path step over the runs between branch points;
//     a session indexed before schema 8 has none and is walked entry by
//     entry until it is next read whole.
//   - A file that is not a grove index, or one made by a newer grove, is
//     refused and never modified: its first 100 bytes are read without
//     SQLite, and a newer grove's index only through a read-only
//     connection. A grove index SQLite cannot read is damaged_index (see
//     damaged.go); Open checks only the schema and each table's root page,
//     so a page damaged deeper down is found by the query that reads it,
//     which callers turn into damaged_index with Classify.
//   - The full-text table entry_text is contentless FTS5 with unicode61
//     (remove_diacritics 2); CJK characters are stored one per token (see
//     text.go), so a CJK query is a phrase of single characters. Its rowid
//     is an entry's doc number (DocNumber): newest first is a rowid walk.
//   - Search totals are exact up to CountLimit matches and a lower bound
//     beyond; --sort relevance ranks only the newest RankWindow matches.
//     Both keep a common word as cheap as a rare one.
//   - Fork copies are recognised at query time (same id, timestamp, CRC-32
//     and length), so removing or re-indexing either session needs no
//     bookkeeping.
//   - Leaves and the last user message on each path come from one walk
//     down from the roots, so they cost the session's size whatever its
//     shape; what lies below each branch point is counted by archive in one
//     pass over EntriesOf, not by a walk per branch point.
//   - The driver is modernc.org/sqlite (pure Go, no cgo), opened with
//     _txlock=immediate so that writers take the lock when they begin.
package index
