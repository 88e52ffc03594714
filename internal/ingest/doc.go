// Package ingest is grove's write path: it brings an index (package
// index) up to date with the session files (package jsonl), by the rules
// of each file's agent (package internal/agent). It finds the files,
// tells what changed, reads it and stores the rows, and it owns the files
// grove keeps beside an index: the lock, the list of sources, the
// rebuild's index and the damaged indexes set aside. Package archive, the
// door the front ends use, holds an Indexer and asks it; ingest never
// imports archive, and answers no question about a session.
//
// An Indexer (Open, OpenForWrite) writes one index:
//
//   - Index is `grove index` (SPEC §6, §8). The first run over an empty
//     index is a cold build (cold.go): the files are read into a private
//     file beside the index, the search text built on another core, and
//     the entry rows swapped in before the text. Every other run is a
//     refresh (refresh_pass.go): the roots walked (FindSessionFiles,
//     discover.go), every file stat'ed and compared with what the index
//     holds, and each file that changed read — from its committed length
//     when it grew by appending (SPEC §6: fingerprints of its first and
//     last committed bytes must match), else whole (refresh.go) — into
//     one write transaction per batch of files (index.Batch), small files
//     read ahead on other cores (prefetch.go). Sessions whose files are
//     gone leave the index.
//   - Watch is `grove watch`: a refresh per batch of changes that package
//     internal/watch reports, and a full one every rescan (watch.go).
//   - Rebuild is `grove rebuild`: a new index built beside the old one
//     (RebuildPath) and swapped in in one transaction (rebuild.go,
//     rebuild_run.go); RebuildStored is its PostgreSQL form, from the
//     committed bytes the index holds (SPEC §10).
//   - Forget is `grove forget` (SPEC §11, forget.go): sessions removed
//     for good and their files' identities recorded in the index, so that
//     a refresh, the cold build and Rebuild leave a file out while its
//     committed bytes are those (a Forgetter, the kept store, is told
//     too).
//   - Lock is the writer lock two groves share (SPEC §6 and docs/indexing.md "Two
//     groves"); OpenForWrite sets a damaged index aside (SetAside) and
//     opens a new one in its place (damaged.go).
//
// What one file's read stores (refresh.go): the entry rows with their
// search text (the agent's AppendSearchText, SPEC §7), the diagnostics
// (SPEC §2), the labels, and the session row — its identity (id,
// workspace, name and parent session by the agent's rules, SPEC §3.3),
// its first user message (FirstMessage, SPEC §8), the file's stat and
// fingerprints. Entries stream into an index.SessionWriter in batches of
// batchEntries, so memory does not grow with the file.
//
// The answers are package index's: a test here writes with an Indexer and
// checks the index with its own queries (index.DB.Dump, Sessions, Path,
// Search), never through package archive.
//
// # Caveats
//
//   - A damaged index (index.Open's damaged_index) is only set aside by an
//     Indexer from OpenForWrite (at open, or when Index or Rebuild meet
//     the damage later), for commands that write the index; Open reports
//     it, and a pass of Watch ends the watch with it. SetAside renames, never deletes or overwrites. A new
//     index holds only what the next `grove index` reads into it.
//   - An append is recognised by fingerprints of the first and last 4 KiB
//     of the committed bytes, with device and inode: a rewrite in place
//     that keeps both windows and grows the file is taken for an append
//     (pi does not write files so; `grove index --force` reads everything
//     whole, and reading a line back checks its CRC-32 anyway).
//   - A file whose stat changed within index.RacyWindowMs of being read is
//     checked by its fingerprints on the next refresh even if its stat
//     looks the same (racily clean, as git calls it).
//   - Rebuild and the cold build copy the new index over the old one
//     through SQLite's backup API: the -wal file grows to the new index's
//     size for a moment, and is folded back into the index file after.
//   - The Indexer's *index.DB changes when a damaged index is set aside
//     during a run: ask DB after each call, never keep it.
package ingest
