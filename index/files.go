package index

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jmoiron/sqlx"
)

// SessionFile is where an indexed session's file is: its absolute path and
// the device and inode it had when it was indexed.
type SessionFile struct {
	Path string `db:"path"`
	Dev  int64  `db:"file_dev"`
	Ino  int64  `db:"file_ino"`
}

// SessionFiles returns the file of every indexed session, sorted by path,
// for export's refusal to replace one (SPEC §8 would_replace_session).
func (d *DB) SessionFiles(ctx context.Context) ([]SessionFile, error) {
	var out []SessionFile
	if err := d.db.SelectContext(ctx, &out, "SELECT path, file_dev, file_ino FROM sessions ORDER BY path"); err != nil {
		return nil, fmt.Errorf("session files: %w", err)
	}
	return out, nil
}

// SourcesOf reads the remembered sources of the index file at path through
// a read-only connection, without Open's checks: for `grove rebuild` to
// know what to read before it sets a damaged index aside. It fails when
// the sources table is what is damaged; nothing is ever written.
func SourcesOf(ctx context.Context, path string) ([]Source, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if ok, err := owned(path, abs); err != nil || !ok {
		return nil, fmt.Errorf("%s: not a grove index", path)
	}
	db, err := sqlx.Open("sqlite", "file:"+uriEscaper.Replace(abs)+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var out []Source
	err = db.SelectContext(ctx, &out, "SELECT kind, path FROM sources ORDER BY kind DESC, path")
	return out, err
}
