// Package archive is grove's domain: sessions, the pure tree rules of
// SPEC §4 (PathTo, MessagesOnPath, Leaves, BranchPoints, ActiveLeaf), and
// the Archive facade that ties the session files to the SQLite index.
// What grove knows of each agent (its roots, identity rules, previews,
// model context) is in internal/agent, one folder per dialect; the archive
// asks agent.Of(dialect) and never names a dialect to decide a rule.
//
// Data flows one way: files are read by package jsonl, package ingest
// (internal/ingest, the write path) turns them into index rows, and
// queries go front end → archive → index, with message bodies read back
// from the files by byte offset and checked against the CRC-32 stored at
// index time. Archive is the one door: a front end (the CLI, a web
// server) imports archive and errs only. The commands are whole here, the
// writing ones as thin calls of an ingest.Indexer the Archive holds: Index
// (refresh, or the cold build of an empty index; a damaged index set
// aside; the roots remembered), the package-level Rebuild, Watch; and the
// read side's own: Fork (a pi session of a path, its file named as pi
// names them), Append, Transcript, Context, Tree, Search, Verify.
//
// The views sit on the same path: Context is the model context at a leaf
// by the session's agent's rules (SPEC §4.1, §3.4–3.6; BuildContext is
// pi's) and ForLLM what the model receives (pi's convertToLlm); BuildTree
// shapes a session for `grove tree` without recursion; ExportPath,
// ForkLines and WriteFork give `grove export` its path and its pi version 3
// fork. Leaves and BranchPoints add the last user message on each path
// and the leaves of each branch; PathBranchPoints gives the branch points
// on one path with their branches.
//
// Callers speak archive's own vocabulary, never index rows or reader
// values: Session (an indexed session file), Entry (an entry's tree edge
// and where its line is), Path (root to leaf), Leaf, BranchPoint (an
// entry two or more entries name as parent), Branch (one child line of
// descent at a branch point), Hit, Context (what a model receives at a
// leaf), Tree (the drawable tree), Workspace, Diagnostic, and Dialect and
// State (aliases of the reader's). File is a session file read whole
// (Load), the pure side the index must agree with.
//
// Every answer the index gives must equal the pure functions here; Verify
// recomputes it both ways, and the package's property test compares them
// over random trees.
//
// # Caveats
//
//   - A damaged index (index.Open's damaged_index) is only set aside by an
//     Archive from OpenForWrite (package ingest says when), for commands
//     that write the index; Open, for reading, reports it.
//   - An index answer is only as fresh as the last `grove index`: Path and
//     Messages refuse with stale_index when the file's size, mtime or inode
//     changed, and Verify reports such files.
//   - Leaves' previews are read from the files; a changed file gets no
//     preview until it is indexed again.
//   - Load keeps every entry's line in memory; it is for one session at a
//     time (verify, tests), not for the whole archive.
//   - Search reads each hit's line back for its snippet; a hit whose file
//     changed since indexing is returned with Stale set and no snippet.
//   - Context reads back only the lines of entries the agent's context
//     rules read (its ContextLine); a version 1 compaction's firstKeptEntryIndex
//     comes from the index (entries.first_kept), so an index made before
//     schema 4 reads its version 1 files again first.
//   - A fork migrates version 1 and 2 entries as pi does (ids added,
//     hookMessage renamed); only version 3 lines are copied byte for byte.
package archive
