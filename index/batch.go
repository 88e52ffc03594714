package index

import (
	"context"
	"fmt"
	"os"
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
	// restoreCache gives the connection its page cache back (Lean).
	restoreCache func()
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
		b.Rollback()
		return fmt.Errorf("index: insert search text: %w", err)
	}
	// FTS5 writes its pending terms at a savepoint (or else inside the
	// commit, past roomToFold's look): a savepoint now puts them in pages
	// that roomToFold counts.
	if !b.d.db.pg {
		if _, err := b.tx.tx.Exec("SAVEPOINT fts_flush; RELEASE fts_flush"); err != nil {
			b.Rollback()
			return fmt.Errorf("index: commit: %w", err)
		}
		err := b.roomToFold()
		b.endLean() // nothing more is changed before the commit
		if err != nil {
			b.tx.Rollback()
			return fmt.Errorf("index: commit: %w", err)
		}
	}
	if err := b.tx.Commit(); err != nil {
		return fmt.Errorf("index: commit: %w", err)
	}
	return nil
}

// foldMargin is what roomToFold allows, beyond the index file's growth and
// the page cache, for the WAL's frame headers and pages held past the
// cache's size.
const foldMargin = 256 << 10

// leanCache is the page cache of a Lean batch, in KiB.
const leanCache = 512

// Lean makes the batch keep at most leanCache KiB of changed pages in
// memory, writing the rest to the WAL as it goes, for as long as it is
// open: roomToFold then asks for the growth and 768 KB more instead of the
// growth and about 2.3 MB (SQLite's default cache). For one file per
// transaction on a full disk (docs/indexing.md "A full disk"). Call it before the
// batch writes anything. In PostgreSQL it does nothing.
func (b *Batch) Lean() error {
	if b.d.db.pg || b.restoreCache != nil {
		return nil
	}
	var was int64
	if err := b.tx.tx.Get(&was, "PRAGMA cache_size"); err != nil {
		return err
	}
	if _, err := b.tx.tx.Exec(fmt.Sprintf("PRAGMA cache_size = -%d", leanCache)); err != nil {
		return err
	}
	b.restoreCache = func() { b.tx.tx.Exec(fmt.Sprintf("PRAGMA cache_size = %d", was)) }
	return nil
}

// endLean gives the batch's connection its page cache back (see Lean), on
// the transaction still open, as the connection goes back to the pool.
func (b *Batch) endLean() {
	if b.restoreCache != nil {
		b.restoreCache()
		b.restoreCache = nil
	}
}

// roomToFold returns a disk_full error (errNoSpace) when the file system of
// the index looks unable to hold both what the commit still writes to the
// WAL and, at the checkpoint after it, the index file grown by the same
// pages: free bytes fewer than the growth (page_count × page_size less the
// file's size), plus the page cache, plus foldMargin. The cache holds the
// changed pages not yet in the WAL until it is full, when they spill into
// it (see Lean): not only the new pages but the index and FTS5 pages
// changed in place, often as many again. A committed transaction that the
// checkpoint cannot fold into the index file holds its WAL, and the disk,
// full until there is room (docs/indexing.md "A full disk"): refusing it
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
	free, ok := freeBytes(b.d.path)
	if !ok {
		return nil
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
	if free < growth+cache+foldMargin {
		return &os.PathError{Op: "commit", Path: b.d.path, Err: errNoSpace}
	}
	return nil
}

// Rollback abandons the batch; after Commit it does nothing.
func (b *Batch) Rollback() {
	b.endLean()
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
