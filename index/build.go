package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"
)

// A cold build (SPEC §6): `grove rebuild` and the first `grove
// index` of an empty index write a new index file that no other process
// knows, then swap it in whole (DB.RestoreFrom). Nothing reads such a file
// before it is complete and synced, so it is written without syncs and
// with its rollback journal in memory, and its search text is built at
// the same time, on another core, in a second private file (TextPath)
// whose full-text tables are copied into the first when both are done.
// The journal is in memory, not off: a read stopped part-way (a Ctrl-C
// interrupts a statement, which rolls the whole transaction back) must
// roll back, and SQLite leaves a ROLLBACK undefined with the journal off
// (https://sqlite.org/pragma.html#pragma_journal_mode): without one, the
// rows stay and pages the cache had spilled can be referenced twice. A
// process killed mid-build leaves a private file nobody reads, removed by
// the next build. The journal is never in memory on an index other
// processes use.

// buildPragmas are the DSN parameters of a cold build's connections.
const buildPragmas = "&_pragma=journal_mode(MEMORY)&_pragma=synchronous(OFF)"

// TextPath is where a cold build of the index at path builds its search
// text: "<path>.text". Only grove makes files by that name.
func TextPath(path string) string { return path + ".text" }

// OpenBuild creates a new, empty index at path for a cold build, which
// must not exist (with its TextPath) or be known to any other process,
// and starts its text builder. Finish ends the build; Close without
// Finish abandons it (the caller removes both files). Errors are those of
// Open, and io_error when the text file cannot be made.
func OpenBuild(ctx context.Context, path string) (*DB, error) {
	d, err := open(ctx, path, true)
	if err != nil {
		return nil, err
	}
	tb, err := startTextBuild(ctx, d)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.build = tb
	if tb.indexes, err = dropIndexes(ctx, d); err != nil {
		d.Close()
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	return d, nil
}

// dropIndexes drops the secondary indexes of the entry rows
// and returns the statements that make them again (makeIndexes): built
// from sorted rows at the end, an index costs less than kept up row by
// row. Nothing a whole read writes looks rows up by them (the tree facts
// are worked out in Go, treeLog).
func dropIndexes(ctx context.Context, d *DB) ([]string, error) {
	var idx []struct {
		Name string `db:"name"`
		SQL  string `db:"sql"`
	}
	if err := d.db.SelectContext(ctx, &idx, `SELECT name, sql FROM sqlite_schema
		WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = 'entries' ORDER BY rowid`); err != nil {
		return nil, err
	}
	var again []string
	for _, x := range idx {
		if _, err := d.db.ExecContext(ctx, `DROP INDEX "`+x.Name+`"`); err != nil {
			return nil, err
		}
		again = append(again, x.SQL)
	}
	return again, nil
}

// makeIndexes makes the indexes dropIndexes dropped, once.
func (d *DB) makeIndexes(ctx context.Context) error {
	if d.build == nil {
		return nil
	}
	for len(d.build.indexes) > 0 {
		if _, err := d.db.ExecContext(ctx, d.build.indexes[0]); err != nil {
			return fmt.Errorf("index %s: make its indexes: %w", d.path, err)
		}
		d.build.indexes = d.build.indexes[1:]
	}
	return nil
}

// textBuild stores search text into its own file on its own goroutine,
// taking it from a spool the writer of entry rows fills.
type textBuild struct {
	path  string
	db    *sqlx.DB
	sp    *spool
	done  chan error
	ended bool
	// indexes are the statements of the secondary indexes OpenBuild
	// dropped, made again before the index is swapped in.
	indexes []string
}

// shadowTables are the full-text index's own tables, copied whole from the
// text file into the index (FTS5's %_data, %_idx, %_docsize and %_config).
var shadowTables = []string{"entry_text_data", "entry_text_idx", "entry_text_docsize", "entry_text_config"}

func startTextBuild(ctx context.Context, d *DB) (*textBuild, error) {
	path := TextPath(d.path)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, ioErr(path, "cannot remove an old build's search text", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return nil, ioErr(path, "cannot create the build's search text file", err)
	}
	f.Close()
	db, err := sqlx.Open("sqlite", "file:"+uriEscaper.Replace(path)+"?_busy_timeout=10000&_txlock=immediate"+buildPragmas)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	// The same table as the index's, with the same settings.
	var create string
	err = d.db.GetContext(ctx, &create, "SELECT sql FROM sqlite_schema WHERE name = 'entry_text'")
	if err == nil {
		_, err = db.ExecContext(ctx, create)
	}
	if err == nil {
		var cfg []struct {
			K string `db:"k"`
			V any    `db:"v"`
		}
		err = d.db.SelectContext(ctx, &cfg, "SELECT k, v FROM entry_text_config WHERE k != 'version'")
		for _, c := range cfg {
			if err == nil {
				_, err = db.ExecContext(ctx, "INSERT INTO entry_text (entry_text, rank) VALUES (?, ?)", c.K, c.V)
			}
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("index %s: start the search text build: %w", path, err)
	}
	sp, err := newSpool(filepath.Dir(path))
	if err != nil {
		db.Close()
		return nil, ioErr(path, "cannot create the build's search text spool", err)
	}
	t := &textBuild{path: path, db: db, sp: sp, done: make(chan error, 1)}
	go t.run()
	return t, nil
}

// run stores each batch of text of the spool in one transaction, in the
// order put (each batch sorted by rowid), until the spool is closed and
// read, or an error.
func (t *textBuild) run() {
	ctx := context.Background()
	var off int64
	for {
		batch, next, err := t.sp.next(off)
		if err == io.EOF {
			t.done <- nil
			return
		}
		if err == nil {
			err = t.store(ctx, batch)
		}
		if err != nil {
			t.sp.fail(err) // the writer stops putting
			t.done <- err
			return
		}
		off = next
	}
}

func (t *textBuild) store(ctx context.Context, batch []pendingText) error {
	tx, err := t.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PreparexContext(ctx, insertTextRow)
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range batch {
		if _, err := st.ExecContext(ctx, batch[i].doc, batch[i].text); err != nil {
			return err
		}
		batch[i] = pendingText{}
	}
	return tx.Commit()
}

// send gives the builder a batch of text, sorted by rowid.
func (t *textBuild) send(batch []pendingText) error { return t.sp.put(batch) }

// close waits for the builder to store what it was given; when ctx ends
// first, the builder stops after the batch it is storing and close
// returns ctx's error.
func (t *textBuild) close(ctx context.Context) error {
	if t.ended {
		return nil
	}
	t.ended = true
	t.sp.close()
	var err error
	select {
	case err = <-t.done:
	case <-ctx.Done():
		t.sp.fail(ctx.Err())
		<-t.done
		err = ctx.Err()
	}
	t.sp.remove()
	if cerr := t.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// textPending is the counters row a cold build's index holds from when its
// entry rows are swapped in (EndEntries) until its search text is
// (AdoptText): while it is there, search finds only part of what it
// should, and the next `grove index` builds the index again.
const textPending = "text_pending"

// EndEntries ends the entry rows of a cold build: no more search text
// comes, the builder goes on with what it has, and the index is marked as
// waiting for it (TextPending), synced and closed, ready to be swapped in
// before its text (DB.RestoreFrom) and then removed, its room given back
// while the text is still built; the index swapped into then gets the
// text with AdoptText. Close still abandons the text build.
func (d *DB) EndEntries(ctx context.Context) error {
	if d.build == nil {
		return errors.New("index: not a cold build")
	}
	d.build.sp.close()
	if err := d.makeIndexes(ctx); err != nil {
		return err
	}
	if _, err := d.db.ExecContext(ctx, "INSERT OR REPLACE INTO counters (name, value) VALUES (?, 1)", textPending); err != nil {
		return fmt.Errorf("index %s: %w", d.path, err)
	}
	if err := syncFile(d.path); err != nil {
		return err
	}
	d.mu.Lock()
	for _, m := range []map[string]*sqlx.Stmt{d.stmts, d.wstmts} {
		for k, st := range m {
			st.Close()
			delete(m, k)
		}
	}
	d.mu.Unlock()
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("index %s: %w", d.path, err)
	}
	return nil
}

// TextPending reports whether the index's search text is still being
// built (see EndEntries): sessions, leaves, tree and path answer, search
// does not yet.
func (d *DB) TextPending(ctx context.Context) (bool, error) {
	var n int
	err := d.db.GetContext(ctx, &n, "SELECT count(*) FROM counters WHERE name = ?", textPending)
	return n > 0, err
}

// AdoptText waits for the search text of the cold build b, whose entry
// rows this index holds now (EndEntries, then RestoreFrom), and puts it
// in: the full-text tables replaced by the build's in one transaction
// that also ends TextPending, after which the text's file is removed and
// the caller checkpoints. It runs on a connection of its own, closed
// after, so no connection of d holds a full-text structure from before.
//
// Before it writes anything it checks that the file system has room for
// the text's pages in the -wal and foldMargin more (the index file then
// grows by no more than the text file removed): without it the error is an
// ENOSPC *os.PathError (disk_full, IsDiskFull), nothing is written, and
// the index's text stays pending (SPEC §6). Errors: the text build's
// (a full disk among them), the copy's, ctx's.
func (d *DB) AdoptText(ctx context.Context, b *DB) error {
	tb := b.build
	if tb == nil {
		return errors.New("index: not a cold build")
	}
	b.build = nil
	if err := tb.close(ctx); err != nil {
		os.Remove(tb.path)
		return fmt.Errorf("index %s: build the search text: %w", tb.path, err)
	}
	fi, err := os.Stat(tb.path)
	if err != nil {
		return ioErr(tb.path, "cannot read the build's search text", err)
	}
	if err := roomFor(d.path, "copy in the search text of "+tb.path, fi.Size()+fi.Size()/4096*walFrameOverhead+foldMargin); err != nil {
		os.Remove(tb.path)
		return err
	}
	db, err := sqlx.Open("sqlite", "file:"+uriEscaper.Replace(d.path)+"?_busy_timeout=10000&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := copyText(ctx, db, tb.path, "DELETE FROM counters WHERE name = 'text_pending'"); err != nil {
		os.Remove(tb.path)
		return fmt.Errorf("index %s: copy the search text: %w", d.path, err)
	}
	os.Remove(tb.path)
	return nil
}

// copyText replaces the full-text tables of db's main schema with those of
// the file at text, and runs also, in one transaction.
func copyText(ctx context.Context, db *sqlx.DB, text, also string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS text", "file:"+uriEscaper.Replace(text)+"?mode=ro"); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE text")
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range shadowTables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM main."+t); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO main."+t+" SELECT * FROM text."+t); err != nil {
			return err
		}
	}
	if also != "" {
		if _, err := tx.ExecContext(ctx, also); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return ioErr(path, "cannot sync the built index", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return ioErr(path, "cannot sync the built index", err)
	}
	return nil
}

// Finish ends a cold build: it waits for the search text, copies it into
// the index and syncs the file. The index is then complete, ready for
// DB.RestoreFrom. Errors: the text or the copy failed.
func (d *DB) Finish(ctx context.Context) error {
	if d.build == nil {
		return nil
	}
	if err := d.makeIndexes(ctx); err != nil {
		return err
	}
	tb := d.build
	d.build = nil
	if err := tb.close(ctx); err != nil {
		return fmt.Errorf("index %s: build the search text: %w", tb.path, err)
	}
	if err := copyText(ctx, d.db.DB, tb.path, ""); err != nil {
		return fmt.Errorf("index %s: copy the search text: %w", d.path, err)
	}
	os.Remove(tb.path)
	return syncFile(d.path)
}
