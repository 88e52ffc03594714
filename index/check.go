package index

import (
	"context"
	"errors"
	"strings"
)

// QuickCheck runs SQLite's PRAGMA quick_check over the whole index file:
// every page of every table and index, the full-text shadow tables
// (entry_text_data and the rest) included, is read and its b-tree
// structure checked (not that each index matches its table, which
// integrity_check adds at several times the cost). It is what makes a
// clean `grove verify` mean the file is whole (SPEC §6: an error about a
// damaged index names the command that repairs it).
//
// It returns nil for a whole index and a damaged_index *errs.Error, whose
// cause is SQLite's first complaint ("Tree 12 page 40: btreeInitPage()
// returns error code 11"), for a damaged one. Other errors (the context
// ended, the file cannot be read) are returned as they are. It reads only:
// the cost is one pass over the file (measured on the test
// machine: a 72 MB index 1.7-2.2 s on 2 busy shared cores, integrity_check
// 4.2 s; see docs/indexing.md "A damaged or foreign index").
//
// In PostgreSQL, which checks its own pages, it does nothing.
func (d *DB) QuickCheck(ctx context.Context) error {
	if d.db.pg {
		return nil
	}
	rows, err := d.db.QueryContext(ctx, "PRAGMA quick_check(10)")
	if err != nil {
		return d.Classify(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return d.Classify(err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return d.Classify(err)
	}
	if len(problems) > 0 {
		return damaged(d.path, errors.New("quick_check: "+strings.Join(problems, "; ")))
	}
	return nil
}

// Checkpoint copies the WAL into the index file and truncates it to zero
// bytes (PRAGMA wal_checkpoint(TRUNCATE)), so that the disk holds the index
// and no copy of its recent pages: what Index does between files on a full
// disk. A reader holding an old snapshot makes it do less, never fail.
// In PostgreSQL it does nothing.
func (d *DB) Checkpoint(ctx context.Context) error {
	if d.db.pg {
		return nil
	}
	_, err := d.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}
