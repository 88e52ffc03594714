package archive

import (
	"context"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/ingest"
)

// The write path is package ingest's (internal/ingest): finding the
// session files, reading what changed and storing it, the cold build,
// rebuild, the passes of watch, damaged indexes and the index's lock. The
// names below are its, given here so that a front end imports archive
// only; their rules are written where they are made.

type (
	// IndexSummary is the answer of `grove index` and `grove rebuild`
	// (SPEC §8): files found, read, appended to, unchanged, damaged,
	// removed, entries and bytes read, and what failed.
	IndexSummary = ingest.IndexSummary
	// IndexOptions say what `grove index` reads: roots, single files,
	// --force, and the Progress and Busy callbacks.
	IndexOptions = ingest.IndexOptions
	// Failure is a file, directory or root that a run could not read.
	Failure = ingest.Failure
	// DefaultRoot is one agent's default session root (SPEC §8).
	DefaultRoot = ingest.DefaultRoot
	// Progress is how far an Index run is, in files and bytes.
	Progress = ingest.Progress
	// WatchOptions say what Watch watches and how often.
	WatchOptions = ingest.WatchOptions
	// WatchPass is one pass of Watch: what was indexed and why.
	WatchPass = ingest.WatchPass
	// RebuildOptions say what Rebuild reads and how it talks.
	RebuildOptions = ingest.RebuildOptions
	// StoredRebuildOptions say what RebuildStored reads.
	StoredRebuildOptions = ingest.StoredRebuildOptions
	// SourcesFileError is Index's error when only the copy of the sources
	// beside the index (SourcesPath) could not be written.
	SourcesFileError = ingest.SourcesFileError
)

// The defaults of `grove watch` (docs/commands.md "grove watch").
const (
	DefaultWatchQuiet  = ingest.DefaultWatchQuiet  // 250 ms without a change before a batch is indexed
	DefaultWatchRescan = ingest.DefaultWatchRescan // 5 minutes between full passes
)

// NotReplaced ends the message of a Rebuild that kept the old index
// (ingest.NotReplaced).
const NotReplaced = ingest.NotReplaced

// OpenForWrite is Open for a command that writes the index: a damaged
// index is set aside as <index>.damaged-<UTC time>, warn is called with
// one line naming the backup, and a new, empty index is opened in its
// place (ingest.OpenForWrite). warn may be nil; the Archive keeps it for
// the notes of Index and Watch. Errors are those of Open, but
// damaged_index.
func OpenForWrite(ctx context.Context, dbPath string, warn func(msg string)) (*Archive, error) {
	ix, err := ingest.OpenForWrite(ctx, dbPath, warn)
	if err != nil {
		return nil, err
	}
	ix.Keep(true)
	return &Archive{ix: ix}, nil
}

// SetKeep turns the kept store on (OpenForWrite's default) or off
// (`--no-keep`, GROVE_KEEP=0) for this archive's writes (SPEC §11): on,
// the committed bytes of every session file indexed are kept beside a
// SQLite index (KeptDir), so that a session whose file is gone still
// answers. In PostgreSQL the index holds them either way (SPEC §10).
func (a *Archive) SetKeep(on bool) { a.ix.Keep(on) }

// KeptDir is the kept store's folder beside the index file; "" in
// PostgreSQL.
func (a *Archive) KeptDir() string {
	if st := a.ix.KeptStore(); st != nil {
		return st.Dir()
	}
	return ""
}

// Index is `grove index` (SPEC §6, §8): it brings the index up to date
// with the session files of opts (ingest.Indexer.Index: the cold build of
// an empty index, a damaged index set aside, the roots remembered).
// Errors: the index failing, index_busy without opts.Busy, disk_full,
// ctx's; a file that cannot be read is in the summary's Failed.
func (a *Archive) Index(ctx context.Context, opts IndexOptions) (IndexSummary, error) {
	return a.ix.Index(ctx, opts)
}

// IndexFile reads one session file (absolute path) into the index, as
// Index reads each of its files (ingest.Indexer.IndexFile): the entries
// stored, the session's state, and whether the file was read.
func (a *Archive) IndexFile(ctx context.Context, path string, force bool) (int, State, bool, error) {
	return a.ix.IndexFile(ctx, path, force)
}

// Watch is `grove watch` (SPEC §6): a first pass over opts.Roots, then a
// pass for each batch of changed files and every opts.Rescan, calling
// onPass after each (ingest.Indexer.Watch). It returns nil when ctx ends.
func (a *Archive) Watch(ctx context.Context, opts WatchOptions, onPass func(WatchPass) error) error {
	return a.ix.Watch(ctx, opts, onPass)
}

// Rebuild is `grove rebuild` (SPEC §6) of the index at dbPath: a new index
// of opts' files (by default what the index was asked to read) is built
// beside it and swapped in, or the old one kept with an io_error ending in
// NotReplaced (ingest.Rebuild).
func Rebuild(ctx context.Context, dbPath string, opts RebuildOptions) (IndexSummary, error) {
	return ingest.Rebuild(ctx, dbPath, opts)
}

// RebuildStored is `grove rebuild` with the index in PostgreSQL (SPEC
// §10): every session of opts' sources made again from the committed
// bytes the index holds (ingest.Indexer.RebuildStored).
func (a *Archive) RebuildStored(ctx context.Context, opts StoredRebuildOptions) (IndexSummary, error) {
	return a.ix.RebuildStored(ctx, opts)
}

// File is the index file's path, as given to Open.
func (a *Archive) File() string { return a.ix.File() }

// SourcesPath is "<dbPath>.sources", the copy beside the index of what it
// was asked to read (ingest.SourcesPath).
func SourcesPath(dbPath string) string { return ingest.SourcesPath(dbPath) }

// ReadSourcesFile returns the sources SourcesPath(dbPath) lists, none when
// there is no such file (ingest.ReadSourcesFile).
func ReadSourcesFile(dbPath string) ([]index.Source, error) { return ingest.ReadSourcesFile(dbPath) }

// CheckRoots is the io_error of a run none of whose roots can be read as a
// directory, nil when one can (ingest.CheckRoots).
func CheckRoots(roots []string, doing, hint string) error {
	return ingest.CheckRoots(roots, doing, hint)
}

// SplitRoots divides roots into those that are directories now and the
// others, each with why it is not (ingest.SplitRoots).
func SplitRoots(roots []string) (dirs []string, missing []Failure) { return ingest.SplitRoots(roots) }

// MakePrivateDir makes dir, an index's own directory, 0700 (SPEC §6;
// ingest.MakePrivateDir).
func MakePrivateDir(dir string, warn func(string)) error { return ingest.MakePrivateDir(dir, warn) }

// FindSessionFiles returns every session file under root, sorted, and the
// directories that could not be read (ingest.FindSessionFiles).
func FindSessionFiles(root string) (files []string, skipped []Failure, err error) {
	return ingest.FindSessionFiles(root)
}

// IsSessionFile reports whether discovery lists the file at path
// (ingest.IsSessionFile).
func IsSessionFile(path string) bool { return ingest.IsSessionFile(path) }

// IsCompressed reports whether path names a file grove lists but cannot
// read, a *.jsonl.zst (SPEC §3.5).
func IsCompressed(path string) bool { return ingest.IsCompressed(path) }

// CommandName is the grove command named by args, os.Args without the
// program name (ingest.CommandName).
func CommandName(args []string) string { return ingest.CommandName(args) }
