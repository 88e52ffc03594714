package index

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/grove-sessions/grove/jsonl"
)

// A session's tree from the index (SPEC §1, §4): its leaves with their
// depths, its branch points, and the path from a root to a leaf, each by
// recursive CTE over the entries table rather than by loading the session.

// Leaf is a leaf entry with its depth: the length of its path, or nil when
// its path is broken (missing parent, cycle, duplicate ids).
type Leaf struct {
	Entry
	Depth *int `db:"depth"`
	// LastUser is the seq of the last entry with role "user" on the leaf's
	// path (the leaf itself when it is one); nil when the path has none or
	// is broken. UserLine, UserOffset, UserLength and UserCRC say where its
	// line is, to read it back without another query.
	LastUser   *int    `db:"last_user"`
	UserLine   *int    `db:"user_line"`
	UserOffset *int64  `db:"user_offset"`
	UserLength *int    `db:"user_length"`
	UserCRC    *uint32 `db:"user_crc"`
}

// LastUserEntry is the last user message on the leaf's path as an entry
// row holding what ReadLine needs (seq, line, offset, length, CRC), or nil.
func (l *Leaf) LastUserEntry() *Entry {
	if l.LastUser == nil || l.UserLine == nil || l.UserOffset == nil || l.UserLength == nil || l.UserCRC == nil {
		return nil
	}
	return &Entry{Seq: *l.LastUser, Line: *l.UserLine, Offset: *l.UserOffset, Length: *l.UserLength, CRC: *l.UserCRC}
}

// Leaves returns the entries of session sid that no entry names as parent,
// in file order (SPEC §1), with their depths and the last user message on
// their paths, both computed by one recursive CTE from the roots down:
// each entry is met once, so the cost is the session's size, whatever its
// shape (a comb of 100,000 leaves costs what a chain does).
func (d *DB) Leaves(ctx context.Context, sid int64) ([]Leaf, error) {
	var dups []sql.NullString
	if err := d.selectCached(ctx, &dups, "SELECT duplicate_id FROM sessions WHERE sid = ?", sid); err != nil {
		return nil, fmt.Errorf("leaves: %w", err)
	}
	if len(dups) == 0 {
		return nil, fmt.Errorf("leaves: %w", sql.ErrNoRows)
	}
	dup := dups[0].Valid // a duplicated id: no path is defined
	var out []Leaf
	// From every root down: a member of a cycle is never reached from a root,
	// so the walk ends; with duplicate ids no path is defined and the walk is
	// skipped (depth NULL).
	q := `WITH RECURSIVE down(entry_id, depth, last_user, user_line, user_offset, user_length, user_crc) AS (
			SELECT entry_id, 1, CASE WHEN role = 'user' THEN seq END, CASE WHEN role = 'user' THEN line END,
				CASE WHEN role = 'user' THEN offset END, CASE WHEN role = 'user' THEN length END, CASE WHEN role = 'user' THEN crc END
			FROM entries WHERE sid = ?1 AND parent_id IS NULL AND ?2 = 1
			UNION ALL
			SELECT c.entry_id, down.depth + 1, CASE WHEN c.role = 'user' THEN c.seq ELSE down.last_user END,
				CASE WHEN c.role = 'user' THEN c.line ELSE down.user_line END,
				CASE WHEN c.role = 'user' THEN c.offset ELSE down.user_offset END,
				CASE WHEN c.role = 'user' THEN c.length ELSE down.user_length END,
				CASE WHEN c.role = 'user' THEN c.crc ELSE down.user_crc END
			FROM down CROSS JOIN entries c INDEXED BY entries_by_parent ON c.sid = ?1 AND c.parent_id = down.entry_id
		)
		SELECT ` + entryCols + `, e.kind, e.path_kind, down.depth, down.last_user, down.user_line, down.user_offset, down.user_length, down.user_crc
		FROM entries e LEFT JOIN down ON down.entry_id = e.entry_id
		WHERE e.sid = ?1 AND NOT EXISTS (SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = e.sid AND c.parent_id = e.entry_id)
		ORDER BY e.seq`
	// Through the statement cache: a listing asks once per session, and
	// parsing this query costs more than running it on a small one.
	if err := d.selectCached(ctx, &out, q, sid, !dup); err != nil {
		return nil, fmt.Errorf("leaves: %w", err)
	}
	return out, nil
}

// BranchPoint is an entry that two or more entries name as parent (SPEC
// §1), with the ids of its children in file order.
type BranchPoint struct {
	EntryID  string
	Children []string
	// Kinds are the children's kinds (SPEC §4.2), index for index: ""
	// for branch; Real marks the children on real branches (path_kind
	// NULL).
	Kinds []string
	Real  []bool
}

// BranchPoints returns the branch points of session sid, in the file order of
// the branch point entries (the first with the id, when ids repeat). A
// parent id that names no entry is no branch point. One query, one index
// lookup per entry; what lies below each branch point is counted by the
// caller from EntriesOf (archive.Archive.BranchPoints), in one pass.
func (d *DB) BranchPoints(ctx context.Context, sid int64) ([]BranchPoint, error) {
	var rows []struct {
		ParentID string  `db:"parent_id"`
		Child    string  `db:"child"`
		Kind     *string `db:"kind"`
		PathKind *string `db:"path_kind"`
	}
	err := d.db.SelectContext(ctx, &rows, `SELECT c.parent_id, c.entry_id AS child, c.kind, c.path_kind
		FROM entries c JOIN (
			SELECT p.entry_id, min(p.seq) AS pseq FROM entries p
			WHERE p.sid = ?1 AND (SELECT count(*) FROM entries k INDEXED BY entries_by_parent WHERE k.sid = ?1 AND k.parent_id = p.entry_id) >= 2
			GROUP BY p.entry_id
		) b ON c.parent_id = b.entry_id
		WHERE c.sid = ?1 ORDER BY b.pseq, c.seq`, sid)
	if err != nil {
		return nil, fmt.Errorf("branches: %w", err)
	}
	var out []BranchPoint
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].EntryID != r.ParentID {
			out = append(out, BranchPoint{EntryID: r.ParentID})
		}
		b := &out[len(out)-1]
		b.Children = append(b.Children, r.Child)
		k := ""
		if r.Kind != nil {
			k = *r.Kind
		}
		b.Kinds = append(b.Kinds, k)
		b.Real = append(b.Real, r.PathKind == nil)
	}
	return out, nil
}

// pathQuery walks from entry ?2 of session ?1 to its root, at most ?3 steps.
//
// Every column rides along in the walk, and each step is one lookup in
// entries_by_id. CROSS JOIN and INDEXED BY are not decoration: without them
// SQLite 3.54 (no ANALYZE statistics) scans the session's entries in the
// outer loop and the walk's queue in the inner one, which makes a
// 12,000-deep path take minutes instead of milliseconds.
const pathQuery = `WITH RECURSIVE
	walk(depth, seq, entry_id, parent_id, type, role, ts_ms, line, offset, length, crc, first_kept) AS (
		SELECT 0, ` + entryCols + ` FROM entries e INDEXED BY entries_by_id WHERE e.sid = ?1 AND e.entry_id = ?2
		UNION ALL
		SELECT w.depth + 1, p.seq, p.entry_id, p.parent_id, p.type, p.role, p.ts_ms, p.line, p.offset, p.length, p.crc, p.first_kept
		FROM walk w CROSS JOIN entries p INDEXED BY entries_by_id ON p.sid = ?1 AND p.entry_id = w.parent_id
		WHERE w.depth < ?3
	)
	SELECT depth, seq, entry_id, parent_id, type, role, ts_ms, line, offset, length, crc, first_kept
	FROM walk ORDER BY depth`

// runPathQuery walks from the run ?2, pos ?3 of session ?1 (migration 8)
// to its root over linear runs: each step goes from a run's head (the
// entry at seq = run) to its parent's run and pos, by entries_by_id, and
// the entries are then read by (sid, run, pos ≤ k) range. Each step carries hp, the parent id of its run's head, read
// from the step's own row when it is a head (pos 0: a comb's every step).
// The walk stops once it has met more entries than the session's
// ?4: a longer walk went round a cycle. Rows carry the run's step n and
// the entry's pos: leaf first is n ascending, pos descending (runSteps
// sorts them in Go, cheaper than SQLite's sorter here).
const runPathQuery = `WITH RECURSIVE
	up(n, run, pos, hp, total) AS (
		SELECT 0, CAST(?2 AS INTEGER), CAST(?3 AS INTEGER), (SELECT parent_id FROM entries WHERE sid = ?1 AND seq = ?2), CAST(?3 AS INTEGER) + 1
		UNION ALL
		SELECT up.n + 1, p.run, p.pos,
			CASE WHEN p.pos = 0 THEN p.parent_id ELSE (SELECT h.parent_id FROM entries h WHERE h.sid = ?1 AND h.seq = p.run) END,
			up.total + p.pos + 1
		FROM up CROSS JOIN entries p INDEXED BY entries_by_id ON p.sid = ?1 AND p.entry_id = up.hp
		WHERE up.total <= ?4
	)
	SELECT up.n, e.pos, ` + entryCols + `
	FROM up CROSS JOIN entries e INDEXED BY entries_by_run ON e.sid = ?1 AND e.run = up.run AND e.pos <= up.pos`

// pathOverEntries makes Path walk one entry per step even where runs are
// stored, for tests and benchmarks that compare the two walks.
var pathOverEntries = false

// PathStep is one row of the path walk: an entry and its distance from the
// leaf (0 for the leaf itself).
type PathStep struct {
	Entry
	Depth int `db:"depth"`
}

// Path answers SPEC §4's PathTo from the index with a recursive CTE: the
// entries from a root down to leafID, root first. The errors are those of
// PathTo, as *errs.Error with the same codes and fields: duplicate_id,
// unknown_entry, missing_parent and cycle.
//
// The walk steps over the linear runs between branch points
// (runPathQuery), so a chain of any depth is one range read; a session
// indexed before migration 8 is walked one entry per step (pathQuery).
// Either walk stops after meeting more entries than the session has: a
// longer walk must have met an id twice, which is a cycle.
func (d *DB) Path(ctx context.Context, sid int64, leafID string) ([]Entry, error) {
	var s struct {
		Entries     int     `db:"entries"`
		DuplicateID *string `db:"duplicate_id"`
	}
	if err := d.db.GetContext(ctx, &s, "SELECT entries, duplicate_id FROM sessions WHERE sid = ?", sid); err != nil {
		return nil, fmt.Errorf("path: %w", err)
	}
	if s.DuplicateID != nil {
		var lines []int
		if err := d.db.SelectContext(ctx, &lines, "SELECT line FROM entries INDEXED BY entries_by_id WHERE sid = ? AND entry_id = ? ORDER BY seq", sid, *s.DuplicateID); err != nil {
			return nil, fmt.Errorf("path: %w", err)
		}
		return nil, jsonl.DuplicateLinesError(*s.DuplicateID, lines)
	}
	var leaf []struct {
		Run *int `db:"run"`
		Pos *int `db:"pos"`
	}
	if err := d.db.SelectContext(ctx, &leaf, "SELECT run, pos FROM entries INDEXED BY entries_by_id WHERE sid = ? AND entry_id = ? ORDER BY seq LIMIT 1", sid, leafID); err != nil {
		return nil, fmt.Errorf("path: %w", err)
	}
	var steps []PathStep
	var err error
	switch {
	case len(leaf) == 0:
	case leaf[0].Run == nil || leaf[0].Pos == nil || pathOverEntries: // indexed before migration 8
		err = d.db.SelectContext(ctx, &steps, pathQuery, sid, leafID, s.Entries)
	default:
		steps, err = d.runSteps(ctx, sid, *leaf[0].Run, *leaf[0].Pos, s.Entries)
	}
	if err != nil {
		return nil, fmt.Errorf("path: %w", err)
	}
	if len(steps) == 0 {
		return nil, jsonl.UnknownEntryError(leafID)
	}
	for i := range steps { // the run walk numbers runs, not entries
		steps[i].Depth = i
	}
	// A walk longer than the session has entries met an id twice: report the
	// first id met again, as PathTo does.
	if len(steps) > s.Entries {
		seen := make(map[string]bool, len(steps))
		for i, st := range steps {
			if seen[st.EntryID] {
				walk := make([]string, i+1)
				for k := range walk {
					walk[k] = steps[k].EntryID
				}
				return nil, jsonl.CycleError(walk, st.Line, st.Offset)
			}
			seen[st.EntryID] = true
		}
	}
	last := steps[len(steps)-1]
	if last.ParentID != nil {
		return nil, jsonl.MissingParentError(last.EntryID, *last.ParentID, last.Line, last.Offset)
	}
	out := make([]Entry, len(steps))
	for i, st := range steps {
		out[len(steps)-1-i] = st.Entry
	}
	return out, nil
}

// runSteps runs runPathQuery, scanning rows by hand (sqlx's reflection and
// its allocations were a third of the time at depth 10,000), and returns
// them leaf first.
func (d *DB) runSteps(ctx context.Context, sid int64, run, pos, entries int) ([]PathStep, error) {
	rows, err := d.db.QueryContext(ctx, runPathQuery, sid, run, pos, entries)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type key struct{ n, pos int }
	var keys []key
	var steps []PathStep
	for rows.Next() {
		var k key
		var e Entry
		if err := rows.Scan(&k.n, &k.pos, &e.Seq, &e.EntryID, &e.ParentID, &e.Type, &e.Role, &e.TsMs, &e.Line, &e.Offset, &e.Length, &e.CRC, &e.FirstKept); err != nil {
			return nil, err
		}
		keys = append(keys, k)
		steps = append(steps, PathStep{Entry: e})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// SQLite gives each run's rows by pos, the runs in walk order: reverse
	// each run's rows; sort only if they came otherwise.
	order := make([]int, len(steps))
	natural := true
	for i := range order {
		order[i] = i
		if i > 0 && (keys[i].n < keys[i-1].n || keys[i].n == keys[i-1].n && keys[i].pos <= keys[i-1].pos) {
			natural = false
		}
	}
	if natural {
		for start := 0; start < len(order); {
			end := start
			for end < len(order) && keys[end].n == keys[start].n {
				end++
			}
			slices.Reverse(order[start:end])
			start = end
		}
	} else {
		slices.SortFunc(order, func(a, b int) int {
			if keys[a].n != keys[b].n {
				return keys[a].n - keys[b].n
			}
			return keys[b].pos - keys[a].pos
		})
	}
	out := make([]PathStep, len(steps))
	for i, j := range order {
		out[i] = steps[j]
	}
	return out, nil
}
