package index

import (
	"context"
	"fmt"
)

// Forgotten is a session file `grove forget` removed from the index (SPEC
// §11), with the file's identity when it was forgotten: a refresh leaves
// the file out while its committed bytes are those (package ingest
// decides, by StatKey first, else by CommittedLen and the fingerprints).
type Forgotten struct {
	Source    string `db:"source"` // the machine whose file it is (SPEC §10); "" in SQLite
	Path      string `db:"path"`
	SessionID string `db:"session_id"`
	Dialect   string `db:"dialect"`
	Workspace string `db:"workspace"`
	// StatKey is the file's StatKey when it was forgotten, 0 when the
	// file was gone or changed within RacyWindowMs of it: its bytes are
	// then looked at.
	StatKey int64 `db:"stat_key"`
	// CommittedLen is the length in bytes of the file's committed lines
	// (SPEC §2: up to and with its last line feed); HeadCRC and TailCRC
	// the CRC-32s of its first and last min(4096, CommittedLen) bytes.
	CommittedLen int64  `db:"committed_len"`
	HeadCRC      uint32 `db:"head_crc"`
	TailCRC      uint32 `db:"tail_crc"`
	ForgottenMs  int64  `db:"forgotten_ms"` // when, in milliseconds since the Unix epoch
}

const forgottenCols = "path, session_id, dialect, workspace, stat_key, committed_len, head_crc, tail_crc, forgotten_ms"

// ForgottenFiles returns this grove's source's forgotten files by path
// (SQLite: all of them).
func (d *DB) ForgottenFiles(ctx context.Context) (map[string]Forgotten, error) {
	var rows []Forgotten
	mine, args := d.mine("")
	if err := d.db.SelectContext(ctx, &rows, "SELECT "+forgottenCols+" FROM forgotten WHERE 1=1"+mine, args...); err != nil {
		return nil, fmt.Errorf("read forgotten files: %w", err)
	}
	out := make(map[string]Forgotten, len(rows))
	for _, f := range rows {
		f.Source = d.source
		out[f.Path] = f
	}
	return out, nil
}

// AddForgotten records fs as forgotten for this grove's source, replacing
// a record of the same path, outside any batch: a rebuild carries the
// old index's records into the new one with it before reading a file.
func (d *DB) AddForgotten(ctx context.Context, fs []Forgotten) error {
	if len(fs) == 0 {
		return nil
	}
	tx, err := d.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("index: begin: %w", err)
	}
	defer tx.Rollback()
	for _, f := range fs {
		if err := d.putForgotten(ctx, tx, f); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (d *DB) putForgotten(ctx context.Context, tx *wtx, f Forgotten) error {
	vals := []any{f.Path, f.SessionID, f.Dialect, f.Workspace, f.StatKey, f.CommittedLen, int64(f.HeadCRC), int64(f.TailCRC), f.ForgottenMs}
	q := "INSERT OR REPLACE INTO forgotten (" + forgottenCols + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
	if d.db.pg {
		q = "INSERT INTO forgotten (source, " + forgottenCols + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" +
			" ON CONFLICT (source, path) DO UPDATE SET session_id = EXCLUDED.session_id, dialect = EXCLUDED.dialect," +
			" workspace = EXCLUDED.workspace, stat_key = EXCLUDED.stat_key, committed_len = EXCLUDED.committed_len," +
			" head_crc = EXCLUDED.head_crc, tail_crc = EXCLUDED.tail_crc, forgotten_ms = EXCLUDED.forgotten_ms"
		vals = append([]any{d.source}, vals...)
	}
	if _, err := tx.ExecContext(ctx, q, vals...); err != nil {
		return fmt.Errorf("index %s: record it forgotten: %w", f.Path, err)
	}
	return nil
}

// Forget removes the session stored for f.Path of this grove's source —
// its rows, its search text and, in PostgreSQL, its committed bytes — and
// records f, in the batch's transaction (SPEC §11). A path the index holds
// no session of is recorded all the same.
func (b *Batch) Forget(ctx context.Context, f Forgotten) error {
	if err := b.d.deleteSession(ctx, b.tx, f.Path, true); err != nil {
		return err
	}
	return b.d.putForgotten(ctx, b.tx, f)
}

// Unforget drops the record of path, in the batch's transaction: its file
// changed and is read again (SPEC §11).
func (b *Batch) Unforget(ctx context.Context, path string) error {
	mine, args := b.d.mine("")
	if _, err := b.tx.ExecContext(ctx, "DELETE FROM forgotten WHERE path = ?"+mine, append([]any{path}, args...)...); err != nil {
		return fmt.Errorf("index %s: drop its forgotten record: %w", path, err)
	}
	return nil
}
