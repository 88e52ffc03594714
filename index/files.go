package index

import (
	"context"
	"fmt"
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
