package ingest

import (
	"context"
	"os"

	"github.com/grove-sessions/grove/index"
)

// Indexer writes one index from session files: `grove index` (Index),
// `grove watch` (Watch), `grove rebuild` (Rebuild, RebuildStored), one file
// (IndexFile), and the lock two groves share (Lock). It holds the open
// index, the index file as it was when opened (to tell whether another
// grove set a damaged one aside first) and where its notes go.
//
// A damaged index met on the way is set aside and a new one opened in its
// place (Index), so the *index.DB it holds can change: ask DB each time.
type Indexer struct {
	db     *index.DB
	opened os.FileInfo      // the index file when it was opened, for reopenDamaged
	warn   func(msg string) // OpenForWrite's: notes on stderr; nil for Open
	// forgetters drop a forgotten file from the stores besides the index
	// (AlsoForget, forget.go).
	forgetters []Forgetter
	keep       bool // keep committed bytes in the kept store (Keep)
}

// Open opens (creating if needed) the index at dbPath (index.Open). It
// sets nothing aside: a command that writes the index uses OpenForWrite.
// Errors are those of index.Open.
func Open(ctx context.Context, dbPath string) (*Indexer, error) {
	db, err := index.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	var fi os.FileInfo
	if !index.IsURL(dbPath) {
		fi, _ = os.Stat(dbPath)
	}
	return &Indexer{db: db, opened: fi}, nil
}

// DB is the index the Indexer writes now; after a damaged one was set
// aside, the new one in its place.
func (ix *Indexer) DB() *index.DB { return ix.db }

// File is the index file's path, as given to Open.
func (ix *Indexer) File() string { return ix.db.File() }

// Close closes the index.
func (ix *Indexer) Close() error { return ix.db.Close() }

// SetSource names the machine (--source; "" means the host name) whose
// session files this Indexer writes into the index (SPEC §10). In SQLite
// the next index pass also gives that name to the sessions written before
// schema 9 (index.DB.ClaimSources), under the index's lock.
func (ix *Indexer) SetSource(ctx context.Context, name string) error {
	if name == "" {
		name, _ = os.Hostname()
	}
	ix.db.SetSource(name)
	return nil
}

// note passes one line to the Warn of OpenForWrite, if any.
func (ix *Indexer) note(msg string) {
	if ix.warn != nil {
		ix.warn(msg)
	}
}
