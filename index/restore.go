package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
)

// restorer is what modernc.org/sqlite's connection offers for SQLite's
// online backup API, run backwards: pages from another file into this one.
type restorer interface {
	NewRestore(srcURI string) (*sqlite.Backup, error)
}

// walFrameOverhead is what the -wal file adds per 4,096 bytes it holds: a
// 24-byte header per frame of one page (4,096 bytes or more), rounded up.
const walFrameOverhead = 128

// RestoreFrom replaces the whole content of this index with that of the
// grove index at src, through SQLite's online backup API (`grove rebuild`
// and the first `grove index` swap a new index in: SPEC §6, docs/indexing.md
// "Crashes"). It is one write transaction on this index: readers — other
// groves searching, a `grove watch` between passes — see the old index or
// the new one, never a mix, and a process killed during the copy leaves
// the old index as it was.
//
// The copy goes to the -wal file, which holds the new index until
// Checkpoint folds it in: the caller removes src first, as the index file
// grows at the checkpoint by at most src's size. So before it writes
// anything RestoreFrom checks that the file system has room for src's
// pages in the -wal and foldMargin more; without it the error is an
// ENOSPC *os.PathError (disk_full, IsDiskFull) and nothing is written
// (SPEC §6: no WAL left grown by a failed run). A copy that fails part-way
// is rolled back and the -wal truncated. Errors: src unreadable, this
// index busy for longer than the busy timeout, I/O, a full disk.
func (d *DB) RestoreFrom(ctx context.Context, src string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("swap in the rebuilt index from %s: %w", src, err)
	}
	if err := roomFor(d.path, "swap in "+src, fi.Size()+fi.Size()/4096*walFrameOverhead+foldMargin); err != nil {
		return err
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		r, ok := dc.(restorer)
		if !ok {
			return fmt.Errorf("the SQLite driver cannot restore a backup")
		}
		b, err := r.NewRestore("file:" + uriEscaper.Replace(src) + "?mode=ro")
		if err != nil {
			return err
		}
		for more := true; more; {
			if more, err = b.Step(1024); err != nil {
				b.Finish()
				return err
			}
			if err := ctx.Err(); err != nil {
				b.Finish()
				return err
			}
		}
		return b.Finish()
	})
	if err != nil {
		// What the failed copy wrote to the -wal is given back.
		d.Checkpoint(context.WithoutCancel(ctx))
		return fmt.Errorf("swap in the rebuilt index from %s: %w", src, err)
	}
	// Statements prepared against the old schema are stale now.
	d.mu.Lock()
	for _, m := range []map[string]*sqlx.Stmt{d.stmts, d.wstmts} {
		for k, st := range m {
			st.Close()
			delete(m, k)
		}
	}
	d.mu.Unlock()
	return nil
}

// CopyTo writes a compact copy of the index to path, a new file (0600)
// that must not exist (VACUUM INTO): for a cold build, the index as it
// was before its swap, to swap back in if the build's search text then
// finds no room (ingest's cold build). Nothing is left at path on an
// error. Errors: io_error when path cannot be made, disk_full, those of
// SQLite.
func (d *DB) CopyTo(ctx context.Context, path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return ioErr(path, "cannot create a copy of the index", err)
	}
	f.Close()
	if _, err := d.db.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return errors.Join(err, rerr)
		}
		return fmt.Errorf("index %s: copy it to %s: %w", d.path, path, err)
	}
	return nil
}
