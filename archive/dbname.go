package archive

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
)

// How a front end names the index (--db, GROVE_DB; SPEC §8, §10): the
// path of a SQLite file, or the URL of a team's index in PostgreSQL.

// IsTeamIndex reports whether db names a team's index in PostgreSQL
// (SPEC §10) rather than a SQLite file: it starts with postgres:// or
// postgresql://, in any case. Open opens either.
func IsTeamIndex(db string) bool { return index.IsURL(db) }

// NotAnIndexName says why db, given as the index, is neither a SQLite
// file's path nor a URL grove reads, or "" when it may be a path: a URL of
// another scheme (mysql://...), a PostgreSQL key=value connection string
// ("host=db dbname=grove"), or one of those with spaces around it, which
// grove would otherwise take for a file name and create. The reason never
// holds db itself, which may hold a password.
func NotAnIndexName(db string) string {
	if t := strings.TrimSpace(db); t != db && (IsTeamIndex(t) || NotAnIndexName(t) != "") {
		return "a connection string with spaces around it: give it without them"
	}
	if l := strings.ToLower(db); !IsTeamIndex(db) && (strings.HasPrefix(l, "postgres:") || strings.HasPrefix(l, "postgresql:") || strings.HasPrefix(l, "file:")) {
		return "neither a file path nor a URL grove reads: a PostgreSQL URL is postgres://USER@HOST:PORT/DATABASE (postgres:///DATABASE?host=/run/postgresql for a Unix socket); a SQLite index is named by its path"
	}
	if i := strings.Index(db, "://"); i > 0 && !strings.ContainsAny(db[:i], "/\\") && !IsTeamIndex(db) {
		return "a " + db[:i] + ":// URL: grove keeps its index in a SQLite file or in PostgreSQL (postgres://…)"
	}
	if f := strings.Fields(db); len(f) > 0 && strings.Contains(f[0], "=") {
		for _, kv := range f {
			switch strings.ToLower(strings.SplitN(kv, "=", 2)[0]) {
			case "host", "dbname", "user", "password", "port", "sslmode":
				return "a PostgreSQL key=value connection string: write it as postgres://USER@HOST:PORT/DATABASE (postgres:///DATABASE?host=/run/postgresql for a Unix socket)"
			}
		}
	}
	return ""
}

// PastableIndex is db as a command to be pasted elsewhere names it: a
// team's index by its URL with the password left out (~/.pgpass or
// PGPASSWORD give it), a SQLite file by its absolute path (the command may
// be pasted in another directory), else db as it is.
func PastableIndex(db string) string {
	if IsTeamIndex(db) {
		return withoutPassword(db)
	}
	if abs, err := filepath.Abs(db); err == nil {
		return abs
	}
	return db
}

// withoutPassword is the PostgreSQL URL db without its password, in the
// user part or as a password= parameter; a URL that does not parse is
// index.Redact's.
func withoutPassword(db string) string {
	u, err := url.Parse(db)
	if err != nil {
		return index.Redact(db)
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// OpenExisting opens the index at db for a command that only reads it: a
// SQLite file that is missing or empty is no_index naming db, and no new
// index is made; a team's index opens as Open opens it, reading as
// readAs's sessions when readAs is not "" (ReadAs). Other errors are
// Open's.
func OpenExisting(ctx context.Context, db, readAs string) (*Archive, error) {
	if IsTeamIndex(db) {
		a, err := Open(ctx, db)
		if err == nil && readAs != "" {
			a.ReadAs(readAs)
		}
		return a, err
	}
	if fi, err := os.Stat(db); errors.Is(err, os.ErrNotExist) || (err == nil && fi.Size() == 0) {
		return nil, errs.New(errs.CodeNoIndex, "no index here yet").In(db).WithHint("run `grove index` first, or pass the index you meant with --db or GROVE_DB")
	}
	return Open(ctx, db)
}
