package index

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/grove-sessions/grove/errs"
)

// reachQuery walks from entry ?2 of session ?1 down to every entry below
// it, one lookup in entries_by_parent per entry, and keeps those that no
// entry names as parent: the leaves below it, in file order. UNION (not
// UNION ALL) drops an entry met twice, so the walk ends even where the
// caller's check that no cycle lies below has been wrong.
const reachQuery = `WITH RECURSIVE down(entry_id) AS (
		SELECT f.entry_id FROM entries f INDEXED BY entries_by_id WHERE f.sid = ?1 AND f.entry_id = ?2
		UNION
		SELECT c.entry_id FROM down CROSS JOIN entries c INDEXED BY entries_by_parent ON c.sid = ?1 AND c.parent_id = down.entry_id
	)
	SELECT ` + entryCols + `, e.kind, e.path_kind FROM down CROSS JOIN entries e INDEXED BY entries_by_id ON e.sid = ?1 AND e.entry_id = down.entry_id
	WHERE NOT EXISTS (SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = ?1 AND c.parent_id = e.entry_id)
	ORDER BY e.seq`

// LeavesThrough returns the leaves of session sid whose paths (SPEC §4,
// as Path answers them) hold the entry entryID, in file order: the entry
// itself when it is a leaf. Each carries its Kind and PathKind (SPEC
// §4.2); Depth and the last user message are not read. When the path to the entry is broken (a
// duplicated id in the session, a missing parent or a cycle above it) no
// path through it is defined, and the answer is none; an entryID that
// names no entry has none either. Below an entry whose own path is whole
// every path is whole (each entry there has one parent, and the walk up
// from it meets the entry), so the leaves below it are exactly the leaves
// whose paths pass through it.
//
// The cost is the number of entries below the entry: each is met once by
// a recursive CTE over entries_by_parent, after Path's walk up from it.
// Errors are the database's.
func (d *DB) LeavesThrough(ctx context.Context, sid int64, entryID string) ([]Leaf, error) {
	if _, err := d.Path(ctx, sid, entryID); err != nil {
		switch errs.CodeOf(err) {
		case errs.CodeDuplicateID, errs.CodeMissingParent, errs.CodeCycle, errs.CodeUnknownEntry:
			return nil, nil
		}
		return nil, fmt.Errorf("leaves through %q: %w", entryID, err)
	}
	var out []Leaf
	if err := d.selectCached(ctx, &out, reachQuery, sid, entryID); err != nil {
		return nil, fmt.Errorf("leaves through %q: %w", entryID, err)
	}
	return out, nil
}

// PathKindOf is the path_kind of the entry at seq of session sid (SPEC
// §4.2, migration 12): the first kind other than branch on the path from
// its root down to it, nil when there is none (the entry is on a real
// branch) or no such entry. Errors are the database's.
func (d *DB) PathKindOf(ctx context.Context, sid int64, seq int) (*string, error) {
	var k []sql.NullString
	if err := d.selectCached(ctx, &k, "SELECT path_kind FROM entries WHERE sid = ? AND seq = ?", sid, seq); err != nil {
		return nil, fmt.Errorf("path kind: %w", err)
	}
	if len(k) == 0 || !k[0].Valid {
		return nil, nil
	}
	return &k[0].String, nil
}
