package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"

	"github.com/grove-sessions/grove/errs"
)

// The index in PostgreSQL (SPEC §10): one database many machines write
// and read at once. Each grove that writes names its source (SetSource);
// its sessions are keyed by (source, path), it holds one advisory lock per
// source while it writes (LockSource), and it stores each file's
// committed bytes with the rows (file_bytes, bytes.go), so that a machine
// without the files answers from the database alone. Readers take no
// lock: PostgreSQL's snapshots let them read while writers write.

// IsURL reports whether s names a PostgreSQL database rather than a SQLite
// file: it starts with postgres:// or postgresql://, in any case.
func IsURL(s string) bool {
	l := strings.ToLower(s[:min(len(s), len("postgresql://"))])
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// Redact is a PostgreSQL URL with its password replaced by "xxxxx", for
// messages; any other string is returned as it is.
func Redact(s string) string {
	if !IsURL(s) {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "postgres://…"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// serverMigrationLock is the advisory lock key that one grove holds while
// it brings a database's schema up to date.
const serverMigrationLock = 0x67726f76 // "grov"

// sourceLockClass is the first key of each source's advisory lock; the
// second is hashtext(source).
const sourceLockClass = 0x67727363 // "grsc"

// openServer opens the PostgreSQL database at rawURL and brings its
// schema up to date (migrations/postgres, recorded in grove_schema).
//
// Errors, each naming the URL without its password: io_error when the
// server cannot be reached or refuses the login; not_index when the
// database holds tables but no grove_schema (another application's
// database: nothing is changed); newer_index when a newer grove made it.
func openServer(ctx context.Context, rawURL string) (*DB, error) {
	shown := Redact(rawURL)
	i := strings.Index(rawURL, "://")
	rawURL = strings.ToLower(rawURL[:i]) + rawURL[i:] // pgx takes the scheme in lower case only
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, errs.New(errs.CodeNotIndex, "not a PostgreSQL URL grove can use: "+err.Error()).In(shown).WithHint("write it as postgres://USER@HOST:PORT/DATABASE (or postgres:///DATABASE?host=/run/postgresql for a Unix socket)")
	}
	if cfg.RuntimeParams["application_name"] == "" {
		host, _ := os.Hostname()
		cfg.RuntimeParams["application_name"] = fmt.Sprintf("grove pid %d on %s", os.Getpid(), host)
	}
	db := sqlx.NewDb(stdlib.OpenDB(*cfg), "pgx")
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errs.Wrap(errs.CodeIO, err, "cannot reach the PostgreSQL index: "+serverMsg(err)).In(shown).WithHint("check that the server runs and the URL, user and password are right (psql with the same URL tells more)")
	}
	host, _ := os.Hostname()
	d := &DB{db: &conn{DB: db, pg: true}, path: shown, keepBytes: true, source: host}
	if err := d.migrateServer(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return d, nil
}

// serverMsg is a server error's message without pgx's wrapping.
func serverMsg(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "): "); i >= 0 && strings.Contains(msg[:i], "failed to connect") {
		msg = msg[i+3:]
	}
	return msg
}

// serverMigrations are the files of migrations/postgres in order.
var serverMigrations = sync.OnceValues(func() ([]migration, error) { return readMigrations("postgres/") })

// migrateServer applies the pending PostgreSQL migrations, each in its own
// transaction, under an advisory lock so that many groves opening a new
// database at once apply each migration once.
func (d *DB) migrateServer(ctx context.Context) error {
	ms, err := serverMigrations()
	if err != nil {
		return err
	}
	c, err := d.db.Conn(ctx)
	if err != nil {
		return d.serverErr("open the index", err)
	}
	defer c.Close()
	var version int
	err = c.QueryRowContext(ctx, "SELECT version FROM grove_schema").Scan(&version)
	if err == nil && version == len(ms) {
		return nil // current: no lock needed
	}
	if _, err := c.ExecContext(ctx, "SELECT pg_advisory_lock($1)", serverMigrationLock); err != nil {
		return d.serverErr("lock the schema", err)
	}
	defer c.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", serverMigrationLock)
	var tables int
	if err := c.QueryRowContext(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil {
		return d.serverErr("read the schema", err)
	}
	var has bool
	if err := c.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'grove_schema')`).Scan(&has); err != nil {
		return d.serverErr("read the schema", err)
	}
	version = 0
	switch {
	case !has && tables > 0:
		return errs.New(errs.CodeNotIndex, fmt.Sprintf("this PostgreSQL database holds %d tables and is not a grove index; refusing to change it", tables)).In(d.path).WithHint("create a database of its own for grove (createdb grove) and pass its URL")
	case has:
		if err := c.QueryRowContext(ctx, "SELECT version FROM grove_schema").Scan(&version); err != nil {
			return d.serverErr("read the schema version", err)
		}
	}
	if version > len(ms) {
		return newerIndexError(d.path, version, len(ms)).WithHint("use the newer grove, or pass another --db") // a URL, no path
	}
	for _, m := range ms[version:] {
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			return d.serverErr("migrate the index to "+m.name, err)
		}
		stmts := m.sql
		if m.version == 1 {
			stmts = "CREATE TABLE grove_schema (version INTEGER NOT NULL); INSERT INTO grove_schema VALUES (0);\n" + stmts
		}
		stmts += fmt.Sprintf(";\nUPDATE grove_schema SET version = %d;", m.version)
		if _, err := tx.ExecContext(ctx, stmts); err != nil {
			tx.Rollback()
			return d.serverErr("migrate the index to "+m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return d.serverErr("migrate the index to "+m.name, err)
		}
	}
	return nil
}

// serverErr is an io_error naming the database for a failed step.
func (d *DB) serverErr(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return errs.Wrap(errs.CodeIO, err, "cannot "+what+": "+serverMsg(err)).In(d.path)
}

// SetSource names the source the sessions this grove writes belong to
// (--source, default the host name; SPEC §10). In PostgreSQL a writer's
// bookkeeping (which files it has, which are gone, its roots) covers only
// the rows of its source. In SQLite, which one machine's files fill, it
// only names the rows written from now on.
func (d *DB) SetSource(name string) { d.source = name }

// Source is the name SetSource gave, or the host name.
func (d *DB) Source() string { return d.source }

// ClaimSources gives the sessions of a SQLite index that have no source
// yet (written before schema 9) this grove's. It does nothing in
// PostgreSQL, whose rows always have one.
func (d *DB) ClaimSources(ctx context.Context) error {
	if d.db.pg || d.source == "" {
		return nil
	}
	_, err := d.db.ExecContext(ctx, "UPDATE sessions SET source = ? WHERE source = ''", d.source)
	return err
}

// mine is the condition that keeps a writer's bookkeeping to its own
// source's rows (in PostgreSQL; nothing in SQLite), for the sessions
// table under alias (without its dot; "" for none).
func (d *DB) mine(alias string) (string, []any) {
	if !d.db.pg {
		return "", nil
	}
	if alias != "" {
		alias += "."
	}
	return " AND " + alias + "source = ?", []any{d.source}
}

// LockSource takes source's advisory lock (SPEC §10: one writer per source
// at a time, any number of sources at once), held by a connection of its
// own until unlock. When another grove holds it, busy is called once with
// what that grove's connection calls itself and LockSource waits, or,
// with busy nil, returns index_busy at once. It returns a no-op in SQLite,
// whose writers share the lock file beside the index instead.
func (d *DB) LockSource(ctx context.Context, busy func(holder string)) (unlock func(), err error) {
	if !d.db.pg {
		return func() {}, nil
	}
	c, err := d.db.Conn(ctx)
	if err != nil {
		return nil, d.serverErr("lock the source", err)
	}
	var ok bool
	if err := c.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1, hashtext($2))", sourceLockClass, d.source).Scan(&ok); err != nil {
		c.Close()
		return nil, d.serverErr("lock the source", err)
	}
	if !ok {
		var holder sql.NullString
		c.QueryRowContext(ctx, `SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.classid = $1::oid AND l.objid = hashtext($2)::oid AND l.objsubid = 2 AND l.granted LIMIT 1`,
			sourceLockClass, d.source).Scan(&holder)
		who := holder.String
		if who == "" {
			who = "a grove whose name is not known"
		}
		if busy == nil {
			c.Close()
			return nil, errs.New(errs.CodeIndexBusy, fmt.Sprintf("another grove is writing the sessions of source %q into this index (%s)", d.source, who)).In(d.path).WithHint("wait for it to finish, or give this machine's sessions another --source; searches and other reading commands work meanwhile")
		}
		busy(who)
		if _, err := c.ExecContext(ctx, "SELECT pg_advisory_lock($1, hashtext($2))", sourceLockClass, d.source); err != nil {
			c.Close()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, d.serverErr("lock the source", err)
		}
	}
	return func() {
		c.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1, hashtext($2))", sourceLockClass, d.source)
		c.Close()
	}, nil
}

// ServerSources lists the sources whose sessions a PostgreSQL index
// holds, sorted; nil in SQLite.
func (d *DB) ServerSources(ctx context.Context) ([]string, error) {
	if !d.db.pg {
		return nil, nil
	}
	var out []string
	err := d.db.SelectContext(ctx, &out, "SELECT DISTINCT source FROM sessions ORDER BY source")
	return out, err
}

// SessionsOfSource lists the sessions of source, by path.
func (d *DB) SessionsOfSource(ctx context.Context, source string) ([]Session, error) {
	var out []Session
	if err := d.db.SelectContext(ctx, &out, "SELECT "+sessionCols+" FROM sessions s WHERE s.source = ? ORDER BY s.path", source); err != nil {
		return nil, fmt.Errorf("sessions of source %s: %w", source, err)
	}
	return out, nil
}

// KeepStored makes the batch leave the committed bytes the index holds as
// they are (file_bytes): for a rebuild that reads them (SPEC §10), whose
// rows are made again from the very bytes they came from.
func (b *Batch) KeepStored() { b.keepStored = true }

// AnalyzeAfter has PostgreSQL gather the planner's statistics of grove's
// tables (ANALYZE) after a run that added entries entries, when they are
// minEntries or more and a tenth or more of the rows the entries table
// held when it was last analyzed (pg_class.reltuples; a table never
// analyzed holds none): autovacuum's own rule (autovacuum_analyze_scale_factor
// 0.1), at once instead of in its own time. It reports whether it ran. It
// does nothing in SQLite, whose queries pin their plans (see pathQuery).
func (d *DB) AnalyzeAfter(ctx context.Context, entries, minEntries int) (bool, error) {
	if !d.db.pg || entries < minEntries {
		return false, nil
	}
	var known float64
	if err := d.db.GetContext(ctx, &known, "SELECT reltuples FROM pg_class WHERE oid = 'entries'::regclass"); err != nil {
		return false, err
	}
	if known > 0 && float64(entries) < known/10 {
		return false, nil
	}
	_, err := d.db.ExecContext(ctx, "ANALYZE sessions, entries, entry_text, diagnostics, labels")
	return err == nil, err
}
