package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/migrations"
)

// ApplicationID marks a SQLite file as a grove index (PRAGMA application_id,
// the bytes "grov"). A file without it is never migrated or modified.
const ApplicationID = 0x67726f76

// DB is an open grove index: one SQLite file (SPEC §6), or a PostgreSQL
// database that many machines share (SPEC §10).
type DB struct {
	db   *conn
	path string // the SQLite file, or the PostgreSQL URL as given
	// source is the name the sessions this grove writes are kept under
	// (SetSource); in PostgreSQL a writer's own rows are those of its
	// source.
	source string
	// keepBytes is set in PostgreSQL: each file's committed bytes are
	// stored with its rows (file_bytes).
	keepBytes bool
	// keeper keeps each file's committed bytes in SQLite (SetKeeper).
	keeper Keeper

	build *textBuild // a cold build's index (OpenBuild): search text goes there

	mu     sync.Mutex
	stmts  map[string]*sqlx.Stmt // prepared read statements, by SQL text
	wstmts map[string]*sqlx.Stmt // prepared write statements (see wtx), by SQL text
	// retired are the statements the last emptying let go: closed at
	// the next one (cachedStmt), or by Close.
	retired []*sqlx.Stmt
}

// selectCached is sqlx's SelectContext through the statement cache.
func (d *DB) selectCached(ctx context.Context, dest any, q string, args ...any) error {
	st, err := d.stmt(ctx, q)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, d.db.args(args)...)
}

// stmt returns q prepared once for this DB: parsing a search query costs
// more than running it. Filters make many query shapes, so this cache is
// emptied past 64 statements.
func (d *DB) stmt(ctx context.Context, q string) (*sqlx.Stmt, error) {
	return d.cachedStmt(ctx, &d.stmts, q, 64)
}

// cachedStmt returns q from *cache, preparing and adding it if missing;
// past limit statements (0: no limit) the cache is emptied first.
func (d *DB) cachedStmt(ctx context.Context, cache *map[string]*sqlx.Stmt, q string, limit int) (*sqlx.Stmt, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st, ok := (*cache)[q]; ok {
		return st, nil
	}
	st, err := d.db.PreparexContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if *cache == nil {
		*cache = map[string]*sqlx.Stmt{}
	}
	if limit > 0 && len(*cache) > limit {
		// The statements let go now may be in use by a query another
		// goroutine just took them for (grove serve answers many at once):
		// they are closed at the next emptying, not now.
		for _, old := range d.retired {
			old.Close()
		}
		d.retired = d.retired[:0]
		for k, old := range *cache {
			d.retired = append(d.retired, old)
			delete(*cache, k)
		}
	}
	(*cache)[q] = st
	return st, nil
}

// migration is one numbered SQL file of package migrations.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the migrations in order, read from package
// migrations once per process (every Open asks; the answer never changes).
func loadMigrations() ([]migration, error) { return migrationList() }

var migrationList = sync.OnceValues(func() ([]migration, error) { return readMigrations("") })

// readMigrations reads the numbered files NNNN_name.sql of package
// migrations in dir ("" for SQLite's, "postgres/" for PostgreSQL's), in
// order; the numbers must run 1, 2, 3, ...
func readMigrations(dir string) ([]migration, error) {
	files, err := fs.Glob(migrations.FS, dir+"*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, f := range files {
		n, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f, dir), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with its number", f)
		}
		b, err := migrations.FS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: n, name: f, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: want number %d", m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the schema version this grove makes: the number of the
// last file in package migrations.
func SchemaVersion() int {
	ms, _ := loadMigrations()
	return len(ms)
}

// Open opens the index at path, creating it and its directory if they do
// not exist, and applies pending migrations in order, each in its own
// transaction recorded in PRAGMA user_version (SPEC §6).
//
// Before SQLite opens the file for writing, its first 100 bytes must be a
// SQLite header with ApplicationID (an empty file counts as no index), and
// a read-only connection checks the schema version, the schema and the
// tables (see damaged.go).
//
// Errors, each a *errs.Error naming path: not_index when the file is not
// provably a grove index (not SQLite, another application's SQLite file, a
// directory, a *.jsonl file) and newer_index when a newer grove made it,
// both leaving the file untouched; damaged_index when it is a grove index
// SQLite cannot read (see Classify); io_error when it cannot be read or
// written.
//
// A path that is a PostgreSQL URL (IsURL) opens that database instead
// (openServer).
func Open(ctx context.Context, path string) (*DB, error) { return open(ctx, path, false) }

// create makes a new index at abs (path as the user named it): a file of
// its own beside it (0600, SPEC §6) with the whole schema, linked to abs
// only when complete. When another grove made abs meanwhile, its index is
// the one: this one is dropped. Errors: io_error, disk_full.
func create(ctx context.Context, path, abs string) error {
	tmp := fmt.Sprintf("%s.new-%d-%d", abs, os.Getpid(), time.Now().UnixNano())
	defer func() {
		for _, s := range []string{"", "-journal", "-wal", "-shm"} {
			os.Remove(tmp + s)
		}
	}()
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return Classify(path, ioErr(path, "cannot create the index", err))
	}
	f.Close()
	db, err := sqlx.Open("sqlite", "file:"+uriEscaper.Replace(tmp)+"?_busy_timeout=10000&_txlock=immediate")
	if err != nil {
		return fmt.Errorf("open index %s: %w", path, err)
	}
	d := &DB{db: &conn{DB: db}, path: path}
	err = d.migrate(ctx, true)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Classify(path, err)
	}
	if err := os.Link(tmp, abs); err != nil && !errors.Is(err, os.ErrExist) {
		return Classify(path, ioErr(path, "cannot create the index", err))
	}
	return nil
}

func open(ctx context.Context, path string, build bool) (*DB, error) {
	if IsURL(path) {
		return openServer(ctx, path)
	}
	if strings.HasSuffix(path, ".jsonl") {
		return nil, errs.New(errs.CodeNotIndex, "refusing to use a session file (*.jsonl) as the index").In(path).WithHint(hintOtherDB)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("index path %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), DirMode); err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "cannot create the index directory: "+err.Error()).In(path)
	}
	exists, err := owned(path, abs)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(abs); !exists && !build && errors.Is(err, os.ErrNotExist) {
		// A new index is made whole beside its name and linked into place,
		// so that another grove opening the same path at the same moment
		// never sees it half made (a SQLite file not yet marked as
		// grove's, which it would refuse as not_index). An empty file put
		// there by hand is made an index where it is, below.
		if err := create(ctx, path, abs); err != nil {
			return nil, err
		}
		exists = true
	}
	if exists {
		if err := probe(ctx, path, abs); err != nil {
			if IsDiskFull(err) {
				removeIdleSidecars(abs)
			}
			return nil, err
		}
	} else if f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode); err == nil {
		// Made here, 0600, before SQLite opens it: SQLite makes the -wal
		// and -shm files with the index file's mode (SPEC §6).
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return nil, Classify(path, ioErr(path, "cannot create the index", err))
	}
	// A URI, so that '?', '#' and '%' in the path are the file's name and
	// not parameters.
	dsn := "file:" + uriEscaper.Replace(abs) + "?_busy_timeout=10000&_synchronous=NORMAL&_txlock=immediate"
	if build {
		dsn += buildPragmas
	}
	db, err := sqlx.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	host, _ := os.Hostname()
	d := &DB{db: &conn{DB: db}, path: path, source: host}
	if err := d.migrate(ctx, !build); err != nil {
		db.Close()
		if IsDiskFull(err) {
			removeIdleSidecars(abs)
		}
		return nil, Classify(path, err)
	}
	return d, nil
}

// ioErr is an io_error naming path, or disk_full when the disk is (see
// DiskFull).
func ioErr(path, what string, err error) error {
	return errs.Wrap(errs.CodeIO, err, what+": "+pathErrMsg(err)).In(path)
}

// uriEscaper escapes what a SQLite URI file name cannot hold literally.
var uriEscaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// Close closes the index.
func (d *DB) Close() error {
	if d.build != nil { // a build abandoned
		stop, cancel := context.WithCancel(context.Background())
		cancel() // the builder stops after the batch it is storing
		d.build.close(stop)
		d.build = nil
	}
	d.mu.Lock()
	for _, st := range d.stmts {
		st.Close()
	}
	for _, st := range d.wstmts {
		st.Close()
	}
	for _, st := range d.retired {
		st.Close()
	}
	d.stmts, d.wstmts, d.retired = nil, nil, nil
	d.mu.Unlock()
	return d.db.Close()
}

// File is the index file's path.
func (d *DB) File() string { return d.path }

func (d *DB) migrate(ctx context.Context, wal bool) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	// One statement for the schema check; the tables are counted only
	// when the file is not marked as grove's (a new file, or a foreign
	// one), and a current schema goes straight to the WAL setting.
	var appID, version, tables int
	row := d.db.QueryRowxContext(ctx, "SELECT application_id, user_version FROM pragma_application_id, pragma_user_version")
	err = row.Scan(&appID, &version)
	if err == nil && appID == 0 {
		err = d.db.GetContext(ctx, &tables, "SELECT count(*) FROM sqlite_schema")
	}
	if err != nil {
		return fmt.Errorf("open index %s: %w", d.path, err)
	}
	switch {
	case appID == 0 && tables > 0, appID != 0 && appID != ApplicationID:
		return errs.New(errs.CodeNotIndex, "this SQLite file is not a grove index; refusing to change it").In(d.path).WithHint(hintOtherDB)
	case version > len(ms):
		return newerIndexError(d.path, version, len(ms))
	}
	for _, m := range ms[version:] {
		if err := d.apply(ctx, m); err != nil {
			return err
		}
	}
	if !wal {
		return nil
	}
	if _, err := d.db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return fmt.Errorf("index %s: set WAL mode: %w", d.path, err)
	}
	return nil
}

func (d *DB) apply(ctx context.Context, m migration) error {
	tx, err := d.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate index to %s: %w", m.name, err)
	}
	defer tx.Rollback()
	// Another grove may have applied it while this one waited for the lock.
	var v int
	if err := tx.GetContext(ctx, &v, "PRAGMA user_version"); err != nil {
		return fmt.Errorf("migrate index to %s: %w", m.name, err)
	}
	if v >= m.version {
		return nil
	}
	stmts := m.sql + fmt.Sprintf(";\nPRAGMA user_version = %d;\nPRAGMA application_id = %d;", m.version, ApplicationID)
	if _, err := tx.ExecContext(ctx, stmts); err != nil {
		return fmt.Errorf("migrate index to %s: %w", m.name, err)
	}
	return tx.Commit()
}
