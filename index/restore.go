package index

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
)

// restorer is what modernc.org/sqlite's connection offers for SQLite's
// online backup API, run backwards: pages from another file into this one.
type restorer interface {
	NewRestore(srcURI string) (*sqlite.Backup, error)
}

// RestoreFrom replaces the whole content of this index with that of the
// grove index at src, through SQLite's online backup API (`grove rebuild`
// swaps a new index in: SPEC §6, README "Crashes"). It is one write
// transaction on this index: readers — other groves searching, a `grove
// watch` between passes — see the old index or the new one, never a mix,
// and a process killed during the copy leaves the old index as it was. In
// WAL mode the copy passes through the -wal file, which grows to the new
// index's size until the checkpoint that follows. Errors: src unreadable,
// this index busy for longer than the busy timeout, I/O.
func (d *DB) RestoreFrom(ctx context.Context, src string) error {
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
	_, err = d.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}
