package index

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

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
// Reach answers the same over runs, far cheaper for many entries of one
// session; this is its answer for a session indexed without runs.
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

// Reach answers LeavesThrough for any number of entries of one session
// from what a session's linear runs say (migration 8), read once: each
// run's last entry, and where each run's head hangs. An entry's leaves
// are then found by a walk over runs rather than entries, and whether
// its path is whole by a walk up over runs. A session indexed before
// migration 8 (no runs) is answered by LeavesThrough itself.
type Reach struct {
	d     *DB
	sid   int64
	none  bool          // a duplicated id: no path is defined
	runs  bool          // runs are stored
	tails map[int]Leaf  // run -> its last entry (Entry.Seq, EntryID, Kind, PathKind filled)
	last  map[int]int   // run -> its last entry's pos
	heads map[int]head  // run -> where its head hangs
	kids  map[int][]kid // run -> the runs whose heads hang off its entries
}

type head struct {
	root    bool // the head has no parent
	missing bool // its parent is not in the session
	run     int  // its parent's run
}

type kid struct{ pos, run int } // a run whose head's parent is at pos

// ReachOf reads what Reach needs of session sid: two reads of its
// entries' rows, no lookup per entry. Errors are the database's.
func (d *DB) ReachOf(ctx context.Context, sid int64) (*Reach, error) {
	r := &Reach{d: d, sid: sid, tails: map[int]Leaf{}, last: map[int]int{}, heads: map[int]head{}, kids: map[int][]kid{}}
	var dups []sql.NullString
	if err := d.selectCached(ctx, &dups, "SELECT duplicate_id FROM sessions WHERE sid = ?", sid); err != nil {
		return nil, fmt.Errorf("reach: %w", err)
	}
	if len(dups) == 0 || dups[0].Valid {
		r.none = true
		return r, nil
	}
	var tails []struct {
		Run      *int    `db:"run"`
		Pos      *int    `db:"pos"`
		Seq      int     `db:"seq"`
		EntryID  string  `db:"entry_id"`
		Kind     *string `db:"kind"`
		PathKind *string `db:"path_kind"`
	}
	// Each run's last entry: SQLite takes a bare column of a max()
	// query from the row that holds the max (its documented rule for
	// bare columns); PostgreSQL says the same with DISTINCT ON.
	q := d.sq(`SELECT run, max(pos) AS pos, seq, entry_id, kind, path_kind FROM entries WHERE sid = ? GROUP BY run`,
		`SELECT DISTINCT ON (run) run, pos, seq, entry_id, kind, path_kind FROM entries WHERE sid = $1 ORDER BY run, pos DESC`)
	if err := d.db.SelectContext(ctx, &tails, q, sid); err != nil {
		return nil, fmt.Errorf("reach: %w", err)
	}
	for _, t := range tails {
		if t.Run == nil || t.Pos == nil {
			return r, nil // indexed before migration 8: LeavesThrough walks the entries
		}
		r.tails[*t.Run] = Leaf{Entry: Entry{Seq: t.Seq, EntryID: t.EntryID, Kind: t.Kind, PathKind: t.PathKind}}
		r.last[*t.Run] = *t.Pos
	}
	var heads []struct {
		Run    int     `db:"run"`
		Parent *string `db:"parent_id"`
		PRun   *int    `db:"prun"`
		PPos   *int    `db:"ppos"`
	}
	if err := d.db.SelectContext(ctx, &heads, `SELECT h.run, h.parent_id, p.run AS prun, p.pos AS ppos
		FROM entries h LEFT JOIN entries p INDEXED BY entries_by_id ON p.sid = h.sid AND p.entry_id = h.parent_id
		WHERE h.sid = ? AND h.pos = 0`, sid); err != nil {
		return nil, fmt.Errorf("reach: %w", err)
	}
	for _, h := range heads {
		switch {
		case h.Parent == nil:
			r.heads[h.Run] = head{root: true}
		case h.PRun == nil || h.PPos == nil:
			r.heads[h.Run] = head{missing: true}
		default:
			r.heads[h.Run] = head{run: *h.PRun}
			r.kids[*h.PRun] = append(r.kids[*h.PRun], kid{pos: *h.PPos, run: h.Run})
		}
	}
	r.runs = true
	return r, nil
}

// LeavesThrough is DB.LeavesThrough of the entry entryID of Reach's
// session, in file order, each leaf with its Seq, EntryID, Kind and
// PathKind (no line or offset). Errors are the database's.
func (r *Reach) LeavesThrough(ctx context.Context, entryID string) ([]Leaf, error) {
	if r.none {
		return nil, nil
	}
	if !r.runs {
		return r.d.LeavesThrough(ctx, r.sid, entryID)
	}
	var at []struct {
		Run *int `db:"run"`
		Pos *int `db:"pos"`
	}
	if err := r.d.selectCached(ctx, &at, "SELECT run, pos FROM entries INDEXED BY entries_by_id WHERE sid = ? AND entry_id = ?", r.sid, entryID); err != nil {
		return nil, fmt.Errorf("reach: %w", err)
	}
	if len(at) != 1 || at[0].Run == nil || at[0].Pos == nil {
		return nil, nil // no such entry
	}
	// Up: the path to the entry is whole when the walk over runs meets a
	// root; a missing parent breaks it, and a walk longer than the runs
	// went round a cycle.
	for run, steps := *at[0].Run, 0; ; steps++ {
		h, ok := r.heads[run]
		if !ok || h.missing || steps > len(r.heads) {
			return nil, nil
		}
		if h.root {
			break
		}
		run = h.run
	}
	// Down: the entry's run from its place, and every run that hangs off
	// an entry met; a run's last entry is a leaf when no run hangs off it.
	var out []Leaf
	type from struct{ run, pos int }
	stack, seen := []from{{*at[0].Run, *at[0].Pos}}, map[int]bool{}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[f.run] {
			continue
		}
		seen[f.run] = true
		t, ok := r.tails[f.run]
		if !ok {
			continue
		}
		leaf, tailPos := true, r.last[f.run]
		for _, k := range r.kids[f.run] {
			if k.pos >= f.pos {
				stack = append(stack, from{k.run, 0})
			}
			if k.pos == tailPos {
				leaf = false
			}
		}
		if leaf {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b Leaf) int { return a.Seq - b.Seq })
	return out, nil
}
