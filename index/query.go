package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

const sessionCols = `s.sid, s.path, s.session_id, s.dialect, s.version, s.workspace, s.name, s.parent_session,
	s.created_ms, s.modified_ms, s.entries, s.leaves, s.lines, s.state, s.active_leaf, s.duplicate_id,
	s.file_size, s.file_mtime_ns, s.file_dev, s.file_ino, s.committed_len, s.indexed_at_ms,
	s.head_crc, s.tail_crc, s.resumable, s.min_ts_ms, s.max_ts_ms, s.header_ms, s.stat_key,
	s.activity_ms, s.first_message,
	(SELECT count(*) FROM diagnostics g WHERE g.sid = s.sid) AS diagnostics`

// SessionFilter narrows Sessions. Each empty field means all.
type SessionFilter struct {
	// Workspace is a clean absolute directory: sessions whose workspace is
	// it or below it (UnderWorkspace, SPEC §3.3).
	Workspace string
	SessionID string // exact session id
	Dialect   string // exact dialect (pi, plain, ...)
}

// Sessions lists the indexed sessions, most recently modified first.
func (d *DB) Sessions(ctx context.Context, f SessionFilter) ([]Session, error) {
	q := "SELECT " + sessionCols + " FROM sessions s WHERE 1=1"
	var args []any
	cond, wargs := workspaceCond("s.workspace", f.Workspace)
	q += cond
	args = append(args, wargs...)
	if f.Dialect != "" {
		q += " AND s.dialect = ?"
		args = append(args, f.Dialect)
	}
	if f.SessionID != "" {
		q += " AND s.session_id = ?"
		args = append(args, f.SessionID)
	}
	q += " ORDER BY coalesce(s.modified_ms, 0) DESC, s.path"
	var out []Session
	if err := d.db.SelectContext(ctx, &out, q, args...); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// SessionByPath returns the session stored for an absolute file path, or
// nil when the index has none.
func (d *DB) SessionByPath(ctx context.Context, path string) (*Session, error) {
	var s Session
	err := d.db.GetContext(ctx, &s, "SELECT "+sessionCols+" FROM sessions s WHERE s.path = ?", path)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find session %s: %w", path, err)
	}
	return &s, nil
}

// SessionsByIDPrefix returns the sessions whose id equals arg, or, when none
// does and arg has at least 4 characters, whose id starts with arg (SPEC §3.3).
func (d *DB) SessionsByIDPrefix(ctx context.Context, arg string) ([]Session, error) {
	var out []Session
	if err := d.selectCached(ctx, &out, "SELECT "+sessionCols+" FROM sessions s WHERE s.session_id = ? ORDER BY s.path", arg); err != nil {
		return nil, fmt.Errorf("find session %q: %w", arg, err)
	}
	if len(out) > 0 || len([]rune(arg)) < 4 {
		return out, nil
	}
	// A range on the index, not LIKE: LIKE would treat % and _ as
	// wildcards and ignore case. U+10FFFF sorts after every character.
	err := d.selectCached(ctx, &out, "SELECT "+sessionCols+` FROM sessions s
		WHERE s.session_id > ? AND s.session_id < ? ORDER BY s.path`, arg, arg+"\U0010FFFF")
	if err != nil {
		return nil, fmt.Errorf("find session %q: %w", arg, err)
	}
	return out, nil
}

// Workspace is one row of Workspaces.
type Workspace struct {
	Workspace  string `db:"workspace"`
	Sessions   int    `db:"sessions"`
	Entries    int    `db:"entries"`
	ModifiedMs *int64 `db:"modified_ms"`
}

// Workspaces lists every workspace that is dir or below it (every one when
// dir is "", UnderWorkspace, SPEC §3.3) with its number of sessions and
// entries and its latest modification, most recent first.
func (d *DB) Workspaces(ctx context.Context, dir string) ([]Workspace, error) {
	var out []Workspace
	cond, args := workspaceCond("workspace", dir)
	err := d.db.SelectContext(ctx, &out, `SELECT workspace, count(*) AS sessions, sum(entries) AS entries,
		max(modified_ms) AS modified_ms FROM sessions WHERE 1=1`+cond+` GROUP BY workspace
		ORDER BY coalesce(max(modified_ms), 0) DESC, workspace`, args...)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return out, nil
}

const entryCols = "e.seq, e.entry_id, e.parent_id, e.type, e.role, e.ts_ms, e.line, e.offset, e.length, e.crc, e.first_kept"

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
	var dup *string
	if err := d.db.GetContext(ctx, &dup, "SELECT duplicate_id FROM sessions WHERE sid = ?", sid); err != nil {
		return nil, fmt.Errorf("leaves: %w", err)
	}
	var out []Leaf
	// From every root down: a member of a cycle is never reached from a root,
	// so the walk ends; with duplicate ids no path is defined and the walk is
	// skipped (depth NULL).
	q := `WITH RECURSIVE down(entry_id, depth, last_user, user_line, user_offset, user_length, user_crc) AS (
			SELECT entry_id, 1, CASE WHEN role = 'user' THEN seq END, CASE WHEN role = 'user' THEN line END,
				CASE WHEN role = 'user' THEN offset END, CASE WHEN role = 'user' THEN length END, CASE WHEN role = 'user' THEN crc END
			FROM entries WHERE sid = ?1 AND parent_id IS NULL AND ?2
			UNION ALL
			SELECT c.entry_id, down.depth + 1, CASE WHEN c.role = 'user' THEN c.seq ELSE down.last_user END,
				CASE WHEN c.role = 'user' THEN c.line ELSE down.user_line END,
				CASE WHEN c.role = 'user' THEN c.offset ELSE down.user_offset END,
				CASE WHEN c.role = 'user' THEN c.length ELSE down.user_length END,
				CASE WHEN c.role = 'user' THEN c.crc ELSE down.user_crc END
			FROM down CROSS JOIN entries c INDEXED BY entries_by_parent ON c.sid = ?1 AND c.parent_id = down.entry_id
		)
		SELECT ` + entryCols + `, down.depth, down.last_user, down.user_line, down.user_offset, down.user_length, down.user_crc
		FROM entries e LEFT JOIN down ON down.entry_id = e.entry_id
		WHERE e.sid = ?1 AND NOT EXISTS (SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = e.sid AND c.parent_id = e.entry_id)
		ORDER BY e.seq`
	if err := d.db.SelectContext(ctx, &out, q, sid, dup == nil); err != nil {
		return nil, fmt.Errorf("leaves: %w", err)
	}
	return out, nil
}

// Branch is a branch point (SPEC §1) with its children in file order.
type Branch struct {
	EntryID  string
	Children []string
}

// Branches returns the branch points of session sid, in the file order of
// the branch point entries (the first with the id, when ids repeat). A
// parent id that names no entry is no branch point. One query, one index
// lookup per entry; what lies below each branch point is counted by the
// caller from EntriesOf (archive.Branches), in one pass.
func (d *DB) Branches(ctx context.Context, sid int64) ([]Branch, error) {
	var rows []struct {
		ParentID string `db:"parent_id"`
		Child    string `db:"child"`
	}
	err := d.db.SelectContext(ctx, &rows, `SELECT c.parent_id, c.entry_id AS child
		FROM entries c JOIN (
			SELECT p.entry_id, min(p.seq) AS pseq FROM entries p
			WHERE p.sid = ?1 AND (SELECT count(*) FROM entries k INDEXED BY entries_by_parent WHERE k.sid = ?1 AND k.parent_id = p.entry_id) >= 2
			GROUP BY p.entry_id
		) b ON c.parent_id = b.entry_id
		WHERE c.sid = ?1 ORDER BY b.pseq, c.seq`, sid)
	if err != nil {
		return nil, fmt.Errorf("branches: %w", err)
	}
	var out []Branch
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].EntryID != r.ParentID {
			out = append(out, Branch{EntryID: r.ParentID})
		}
		b := &out[len(out)-1]
		b.Children = append(b.Children, r.Child)
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

// PathStep is one row of the path walk: an entry and its distance from the
// leaf (0 for the leaf itself).
type PathStep struct {
	Entry
	Depth int `db:"depth"`
}

// Path answers SPEC §4's PathTo from the index with a recursive CTE: the
// entries from a root down to leafID, root first. The errors are those of
// PathTo, as *jsonl.Error with the same codes and fields: duplicate_id,
// unknown_entry, missing_parent and cycle.
//
// The walk follows parent_id upward, one index lookup per step, and stops
// after as many steps as the session has entries: a longer walk must have
// met an id twice, which is a cycle.
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
	var steps []PathStep
	err := d.db.SelectContext(ctx, &steps, pathQuery, sid, leafID, s.Entries)
	if err != nil {
		return nil, fmt.Errorf("path: %w", err)
	}
	if len(steps) == 0 {
		return nil, jsonl.UnknownEntryError(leafID)
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

// EntryByID returns the first entry of session sid with id entryID, in file
// order, or nil.
func (d *DB) EntryByID(ctx context.Context, sid int64, entryID string) (*Entry, error) {
	var e Entry
	err := d.db.GetContext(ctx, &e, "SELECT "+entryCols+" FROM entries e INDEXED BY entries_by_id WHERE e.sid = ? AND e.entry_id = ? ORDER BY e.seq LIMIT 1", sid, entryID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// Diagnostics returns the stored diagnostics of session sid in file order
// (by line; on one line, in the order they were found). A duplicate_id
// diagnostic (one per duplicated id, on the line of its second entry)
// gets ID and Lines from the entries; a lone_surrogate gets Field from
// its message.
func (d *DB) Diagnostics(ctx context.Context, sid int64) ([]Diagnostic, error) {
	var out []Diagnostic
	if err := d.db.SelectContext(ctx, &out, "SELECT severity, code, line, offset, message FROM diagnostics WHERE sid = ? ORDER BY line, seq", sid); err != nil {
		return nil, err
	}
	dups := false
	for i := range out {
		switch errs.Code(out[i].Code) {
		case errs.CodeLoneSurrogate:
			out[i].Field = jsonl.LoneSurrogateField(out[i].Message)
		case errs.CodeDuplicateID:
			dups = true
		}
	}
	if !dups {
		return out, nil
	}
	ids, err := d.DuplicateIDs(ctx, sid)
	if err != nil {
		return nil, err
	}
	bySecond := make(map[int]int, len(ids)) // line of the second entry -> index in ids
	for i, x := range ids {
		bySecond[x.Lines[1]] = i
	}
	for i := range out {
		if k, ok := bySecond[out[i].Line]; ok && out[i].Code == string(errs.CodeDuplicateID) {
			out[i].ID, out[i].Lines = ids[k].ID, ids[k].Lines
		}
	}
	return out, nil
}

// DuplicateID is an id that two or more entries of a session have (SPEC §4
// rule 1), with the lines of all of them in file order.
type DuplicateID struct {
	ID    string
	Lines []int
}

// DuplicateIDs returns every duplicated id of session sid, in the order of
// their second entries (where their diagnostics are), or nil. It reads the
// session's part of the id index once.
func (d *DB) DuplicateIDs(ctx context.Context, sid int64) ([]DuplicateID, error) {
	var rows []struct {
		ID   string `db:"entry_id"`
		Line int    `db:"line"`
	}
	if err := d.db.SelectContext(ctx, &rows, `SELECT e.entry_id, e.line FROM entries e INDEXED BY entries_by_id
		WHERE e.sid = ?1 AND e.entry_id IN (SELECT entry_id FROM entries INDEXED BY entries_by_id WHERE sid = ?1 GROUP BY entry_id HAVING count(*) > 1)
		ORDER BY e.entry_id, e.seq`, sid); err != nil {
		return nil, fmt.Errorf("duplicate ids: %w", err)
	}
	var out []DuplicateID
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].ID != r.ID {
			out = append(out, DuplicateID{ID: r.ID})
		}
		x := &out[len(out)-1]
		x.Lines = append(x.Lines, r.Line)
	}
	slices.SortFunc(out, func(a, b DuplicateID) int { return a.Lines[1] - b.Lines[1] })
	return out, nil
}

// Labels returns the labels of session sid by target entry id.
func (d *DB) Labels(ctx context.Context, sid int64) (map[string]string, error) {
	var rows []Label
	if err := d.db.SelectContext(ctx, &rows, "SELECT target_id, label FROM labels WHERE sid = ?", sid); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.TargetID] = r.Label
	}
	return out, nil
}

// HasValue reports whether some entry has value in column, which is "role"
// or "type" (for telling a user that a filter names nothing). It scans the
// entries table: call it only when a search found nothing.
func (d *DB) HasValue(ctx context.Context, column, value string) (bool, error) {
	if column != "role" && column != "type" {
		return false, fmt.Errorf("HasValue: no column %q", column)
	}
	var n int
	err := d.db.GetContext(ctx, &n, "SELECT EXISTS (SELECT 1 FROM entries WHERE "+column+" = ?)", value)
	return n == 1, err
}

// CountSessions returns how many sessions the index holds.
func (d *DB) CountSessions(ctx context.Context) (int, error) {
	var n int
	err := d.db.GetContext(ctx, &n, "SELECT count(*) FROM sessions")
	return n, err
}

// Paths returns the file paths of every indexed session, sorted.
func (d *DB) Paths(ctx context.Context) ([]string, error) {
	var out []string
	err := d.db.SelectContext(ctx, &out, "SELECT path FROM sessions ORDER BY path")
	return out, err
}

// EntriesOf returns every entry row of session sid in file order (Active,
// Doc and Text left zero). Rows are scanned by hand: for a 100,000-entry
// session sqlx's reflection cost a quarter of the query.
func (d *DB) EntriesOf(ctx context.Context, sid int64) ([]Entry, error) {
	var n int
	if err := d.db.GetContext(ctx, &n, "SELECT entries FROM sessions WHERE sid = ?", sid); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("entries: %w", err)
	}
	rows, err := d.db.QueryContext(ctx, "SELECT "+entryCols+" FROM entries e WHERE e.sid = ? ORDER BY e.seq", sid)
	if err != nil {
		return nil, fmt.Errorf("entries: %w", err)
	}
	defer rows.Close()
	out := make([]Entry, 0, n)
	for rows.Next() {
		var e Entry
		if err := rows.Scan(&e.Seq, &e.EntryID, &e.ParentID, &e.Type, &e.Role, &e.TsMs, &e.Line, &e.Offset, &e.Length, &e.CRC, &e.FirstKept); err != nil {
			return nil, fmt.Errorf("entries: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entries: %w", err)
	}
	return out, nil
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
// whether it changed (README "Keeping the index current"), and the paths of
// sessions whose state is not ok. Two queries over narrow indexes, whatever
// the number of sessions; SessionByPath gives the rest for a file that
// changed.
func (d *DB) FileStates(ctx context.Context) (keys map[string]int64, notOK map[string]bool, err error) {
	// Scanned by hand, two columns only: the driver's cost per column and
	// row is most of a no-op refresh of 10,000 files.
	rows, err := d.db.QueryContext(ctx, `SELECT path, stat_key FROM sessions INDEXED BY sessions_stat_key`)
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
		keys[path] = key
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read file states: %w", err)
	}
	var bad []string
	if err := d.db.SelectContext(ctx, &bad, "SELECT path FROM sessions INDEXED BY sessions_not_ok WHERE state != 'ok'"); err != nil {
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
		if _, err := d.db.ExecContext(ctx, "INSERT OR IGNORE INTO sources (kind, path) VALUES (?, ?)", s.Kind, s.Path); err != nil {
			return fmt.Errorf("remember sources: %w", err)
		}
	}
	return nil
}

// Sources returns the remembered sources, roots first, each sorted.
func (d *DB) Sources(ctx context.Context) ([]Source, error) {
	var out []Source
	err := d.db.SelectContext(ctx, &out, "SELECT kind, path FROM sources ORDER BY kind DESC, path")
	return out, err
}
