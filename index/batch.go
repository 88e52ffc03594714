package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grove-sessions/grove/internal/diskfree"
)

// The write transaction (SPEC §6): a Batch holds the SessionWriters of
// several session files, each behind its own savepoint, and refuses a
// commit the disk could not fold back into the index file.

// Batch is one write transaction holding the updates of several session
// files, each its own SessionWriter (SPEC §6). Readers see every
// session wholly before or wholly after; a file that fails half-way is
// rolled back to its savepoint and the others stay. Small files share a
// transaction because a commit, and the full-text index's flush at each
// one, cost more than indexing a small file.
type Batch struct {
	d    *DB
	tx   *wtx
	n    int // savepoints opened, for their names
	done int // writers committed into the batch
	dead bool
	w    *SessionWriter

	text      []pendingText // search text held until Commit (textbuf.go)
	textBytes int
	// keepStored is set by a rebuild from the stored bytes (PostgreSQL,
	// SPEC §10): the file_bytes rows stay as they are.
	keepStored bool
}

// Dead reports whether the batch was rolled back whole (its first writer
// failed): begin a new one.
func (b *Batch) Dead() bool { return b.dead }

// BeginBatch starts a write transaction.
func (d *DB) BeginBatch(ctx context.Context) (*Batch, error) {
	tx, err := d.beginWrite(ctx)
	if err != nil {
		return nil, fmt.Errorf("index: begin: %w", err)
	}
	return &Batch{d: d, tx: tx}, nil
}

// Commit commits the batch. A SessionWriter still open is rolled back
// first.
func (b *Batch) Commit() error {
	if b.w != nil {
		b.w.Rollback()
	}
	if b.dead {
		return nil
	}
	if err := b.flushText(context.Background()); err != nil {
		b.tx.Rollback()
		b.text = nil
		return fmt.Errorf("index: insert search text: %w", err)
	}
	// FTS5 writes its pending terms at a savepoint (or else inside the
	// commit, past roomToFold's look): a savepoint now puts them in pages
	// that roomToFold counts.
	if !b.d.db.pg {
		if _, err := b.tx.tx.Exec("SAVEPOINT fts_flush; RELEASE fts_flush"); err != nil {
			b.tx.Rollback()
			return fmt.Errorf("index: commit: %w", err)
		}
		if err := b.roomToFold(); err != nil {
			b.tx.Rollback()
			return fmt.Errorf("index: commit: %w", err)
		}
	}
	if err := b.tx.Commit(); err != nil {
		return fmt.Errorf("index: commit: %w", err)
	}
	return nil
}

// foldMargin is what roomToFold allows, beyond the index file's growth, for
// the pages of the index a transaction changes in place (B-tree interior
// pages, FTS5 segments) and the WAL's frame headers.
const foldMargin = 256 << 10

// roomToFold returns a disk_full error (errNoSpace) when the file system of
// the index looks unable to hold both what the commit still writes to the
// WAL and, at the checkpoint after it, the index file grown by the same
// pages: free bytes fewer than the growth (page_count × page_size less the
// file's size), plus the pages the commit still writes to the WAL (no more
// than the growth, nor than the page cache, which spills into the WAL
// when full), plus foldMargin. A committed transaction that the
// checkpoint cannot fold into the index file holds its WAL, and the disk,
// full until there is room (README "A full disk"): refusing it
// before the commit leaves the WAL foldable, and truncated by the
// checkpoint that follows. Nil when the sizes cannot be known (a file
// system that reports no blocks at all is taken to have room).
func (b *Batch) roomToFold() error {
	var pages, size int64
	if err := b.tx.tx.Get(&pages, "PRAGMA page_count"); err != nil {
		return nil
	}
	if err := b.tx.tx.Get(&size, "PRAGMA page_size"); err != nil {
		return nil
	}
	fi, err := os.Stat(b.d.path)
	if err != nil {
		return nil
	}
	free, ok := diskfree.Available(filepath.Dir(b.d.path))
	if !ok {
		return nil // some network and FUSE file systems report no sizes at all
	}
	var cache int64
	if err := b.tx.tx.Get(&cache, "PRAGMA cache_size"); err != nil {
		return nil
	}
	if cache < 0 {
		cache *= -1024 // KiB
	} else {
		cache *= size // pages
	}
	growth := max(0, pages*size-fi.Size())
	if free < growth+min(growth, cache)+foldMargin {
		return &os.PathError{Op: "commit", Path: b.d.path, Err: errNoSpace}
	}
	return nil
}

// Rollback abandons the batch; after Commit it does nothing.
func (b *Batch) Rollback() {
	b.tx.Rollback()
	b.text, b.textBytes = nil, 0
}

// Settle records that the file of session sid, whose stat was not
// trusted (see RacyWindowMs), was found unchanged by its bytes at nowMs:
// its stat key is statKey from now on.
func (b *Batch) Settle(ctx context.Context, sid, statKey, nowMs int64) error {
	if b.w != nil {
		b.w.Rollback()
	}
	_, err := b.tx.ExecContext(ctx, "UPDATE sessions SET stat_key = ?, indexed_at_ms = ? WHERE sid = ?", statKey, nowMs, sid)
	return err
}

// Remove deletes the session stored for path, if any.
func (b *Batch) Remove(ctx context.Context, path string) error {
	return b.d.deleteSession(ctx, b.tx, path, true)
}

// savepoint opens the savepoint of the next writer, except for the first
// writer of the batch: with nothing else in the transaction to keep, its
// rollback is the transaction's. (Every open savepoint makes FTS5 flush its
// pending terms at each statement: a third of the time of indexing a big
// file went to that.)
func (b *Batch) savepoint(ctx context.Context) (string, error) {
	if b.w != nil {
		b.w.Rollback()
	}
	if b.done == 0 {
		return "", nil
	}
	b.n++
	name := fmt.Sprintf("session_%d", b.n)
	_, err := b.tx.tx.ExecContext(ctx, "SAVEPOINT "+name)
	return name, err
}
