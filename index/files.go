package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
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
	mine, args := d.mine("")
	if err := d.db.SelectContext(ctx, &out, "SELECT path, file_dev, file_ino FROM sessions WHERE 1=1"+mine+" ORDER BY path", args...); err != nil {
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

// RacyWindowMs is how close to its indexing a file's mtime may be for its
// stat to be trusted, in milliseconds: file systems keep mtimes to a clock
// tick (a few milliseconds; two seconds on FAT), so a same-size rewrite in
// the tick of the read before it would look unchanged. Git calls such
// entries racily clean. A racily clean file's bytes are checked again.
const RacyWindowMs = 2000

// StatKey is the stat_key of a file of size bytes, mtime in nanoseconds,
// device and inode: an FNV-1a hash, never 0 (0 means "look again").
func StatKey(size, mtimeNs, dev, ino int64) int64 {
	h := fnv.New64a()
	var b [32]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(size))
	binary.LittleEndian.PutUint64(b[8:], uint64(mtimeNs))
	binary.LittleEndian.PutUint64(b[16:], uint64(dev))
	binary.LittleEndian.PutUint64(b[24:], uint64(ino))
	h.Write(b[:])
	if k := int64(h.Sum64()); k != 0 {
		return k
	}
	return 1
}

// FileStates returns, by path, the stat_key of every indexed session's
// file (see StatKey), so that a refresh tells with one stat per file
// whether it changed (docs/indexing.md "Keeping the index current"), and the paths of sessions whose state is
// not ok. Two queries over narrow indexes, whatever the number of
// sessions; SessionByPath gives the rest for a file that changed.
func (d *DB) FileStates(ctx context.Context) (keys map[string]int64, notOK map[string]bool, err error) {
	// Scanned by hand, two columns only: the driver's cost per column and
	// row is most of a no-op refresh of 10,000 files.
	mine, args := d.mine("")
	rows, err := d.db.QueryContext(ctx, `SELECT path, stat_key FROM sessions INDEXED BY sessions_stat_key WHERE 1=1`+mine, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("read file states: %w", err)
	}
	defer rows.Close()
	keys = map[string]int64{}
	var path string
	var key int64
	for rows.Next() {
		if err := rows.Scan(&path, &key); err != nil {
			return nil, nil, fmt.Errorf("read file states: %w", err)
		}
		if key == GoneKey {
			continue // no file to look at (MarkGone)
		}
		keys[path] = key
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read file states: %w", err)
	}
	var bad []string
	if err := d.db.SelectContext(ctx, &bad, "SELECT path FROM sessions INDEXED BY sessions_not_ok WHERE state != 'ok'"+mine, args...); err != nil {
		return nil, nil, fmt.Errorf("read file states: %w", err)
	}
	notOK = make(map[string]bool, len(bad))
	for _, p := range bad {
		notOK[p] = true
	}
	return keys, notOK, nil
}

// Source is a root directory or a single file `grove index` was asked to
// read, remembered so that `grove rebuild` reads the same (migration 3).
type Source struct {
	Kind string `db:"kind"` // "root" or "file"
	Path string `db:"path"` // absolute
}

// AddSources remembers sources; ones already known are kept once.
func (d *DB) AddSources(ctx context.Context, sources []Source) error {
	for _, s := range sources {
		q, args := "INSERT OR IGNORE INTO sources (kind, path) VALUES (?, ?)", []any{s.Kind, s.Path}
		if d.db.pg {
			q, args = "INSERT INTO sources (source, kind, path) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", []any{d.source, s.Kind, s.Path}
		}
		if _, err := d.db.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("remember sources: %w", err)
		}
	}
	return nil
}

// Sources returns the remembered sources, roots first, each sorted.
func (d *DB) Sources(ctx context.Context) ([]Source, error) {
	var out []Source
	mine, args := d.mine("")
	err := d.db.SelectContext(ctx, &out, "SELECT kind, path FROM sources WHERE 1=1"+mine+" ORDER BY kind DESC, path", args...)
	return out, err
}
