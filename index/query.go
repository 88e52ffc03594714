package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

const sessionCols = `s.sid, s.source, s.path, s.session_id, s.dialect, s.version, s.workspace, s.name, s.parent_session,
	s.created_ms, s.modified_ms, s.entries, s.leaves, s.real_leaves, s.lines, s.state, s.active_leaf, s.duplicate_id,
	s.file_size, s.file_mtime_ns, s.file_dev, s.file_ino, s.committed_len, s.indexed_at_ms,
	s.head_crc, s.tail_crc, s.resumable, s.min_ts_ms, s.max_ts_ms, s.header_ms, s.stat_key,
	s.activity_ms, s.first_message, s.gone,
	(SELECT count(*) FROM diagnostics g WHERE g.sid = s.sid) AS diagnostics`

// SessionFilter narrows Sessions. Each empty field means all.
type SessionFilter struct {
	// Workspace is a clean absolute directory: sessions whose workspace is
	// it or below it (UnderWorkspace, SPEC §3.3).
	Workspace string
	SessionID string // exact session id
	Dialect   string // exact dialect (pi, plain, ...)
	Named     bool   // only sessions with a name (with Dialect: by the index sessions_named)
	Source    string // only sessions of this source (SPEC §10)
}

// Sessions lists the indexed sessions in the order of every listing of
// them (SessionOrder).
func (d *DB) Sessions(ctx context.Context, f SessionFilter) ([]Session, error) {
	q, args := sessionsQuery(f)
	var out []Session
	if err := d.db.SelectContext(ctx, &out, q, args...); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// sessionsQuery is the query of Sessions and its arguments.
func sessionsQuery(f SessionFilter) (string, []any) {
	q := "SELECT " + sessionCols + " FROM sessions s WHERE 1=1"
	var args []any
	cond, wargs := workspaceCond("s.workspace_key", f.Workspace)
	q += cond
	args = append(args, wargs...)
	if f.Dialect != "" {
		q += " AND s.dialect = ?"
		args = append(args, f.Dialect)
	}
	if f.Named {
		q += " AND s.name != ''"
	}
	if f.SessionID != "" {
		q += " AND s.session_id = ?"
		args = append(args, f.SessionID)
	}
	if f.Source != "" {
		q += " AND s.source = ?"
		args = append(args, f.Source)
	}
	q += " ORDER BY " + SessionOrder
	return q, args
}

// SessionOrder is the order of a listing of sessions (SPEC §8
// `sessions`), the same in SQLite and PostgreSQL (SPEC §10): the sessions
// with entries first, most recently modified first (SPEC §3.2, pi's
// /resume order; an unknown time as 0); then the sessions without entries
// (a Claude Code file of snapshots only, a header alone), whose modified
// time is the file's own and says nothing of any work in them, in the
// same order; ties by file path, then by source (a team's index holds one
// path per source). Paths compare byte-wise on both (PostgreSQL's columns
// are COLLATE "C"), so the order is total and one.
const SessionOrder = "(s.entries = 0), coalesce(s.modified_ms, 0) DESC, s.path, s.source"

// SessionByPath returns the session stored for an absolute file path, or
// nil when the index has none. In PostgreSQL it is the session of this
// grove's source (SetSource) at that path: the one its writes replace.
func (d *DB) SessionByPath(ctx context.Context, path string) (*Session, error) {
	var s Session
	mine, args := d.mine("s")
	err := d.db.GetContext(ctx, &s, "SELECT "+sessionCols+" FROM sessions s WHERE s.path = ?"+mine, append([]any{path}, args...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find session %s: %w", path, err)
	}
	return &s, nil
}

// SessionsAtPath returns the sessions stored for an absolute file path,
// of every source (PostgreSQL holds one per source that has the path),
// ordered by source.
func (d *DB) SessionsAtPath(ctx context.Context, path string) ([]Session, error) {
	var out []Session
	if err := d.db.SelectContext(ctx, &out, "SELECT "+sessionCols+" FROM sessions s WHERE s.path = ? ORDER BY s.source", path); err != nil {
		return nil, fmt.Errorf("find session %s: %w", path, err)
	}
	return out, nil
}

// SessionsByIDPrefix returns the sessions whose id equals arg, or, when none
// does and arg has at least 4 characters, whose id starts with arg (SPEC §3.3).
func (d *DB) SessionsByIDPrefix(ctx context.Context, arg string) ([]Session, error) {
	var out []Session
	if err := d.selectCached(ctx, &out, "SELECT "+sessionCols+" FROM sessions s WHERE s.session_id = ? ORDER BY s.path, s.source", arg); err != nil {
		return nil, fmt.Errorf("find session %q: %w", arg, err)
	}
	if len(out) > 0 || len([]rune(arg)) < 4 {
		return out, nil
	}
	// A range on the index, not LIKE: LIKE would treat % and _ as
	// wildcards and ignore case. U+10FFFF sorts after every character.
	err := d.selectCached(ctx, &out, "SELECT "+sessionCols+` FROM sessions s
		WHERE s.session_id > ? AND s.session_id < ? ORDER BY s.path, s.source`, arg, arg+"\U0010FFFF")
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
// entries and its modified time: the latest of its sessions' that have
// entries, else of all of them. They come as SessionOrder puts sessions:
// workspaces with entries first, most recently modified first, then by
// name (byte-wise in SQLite and PostgreSQL alike).
func (d *DB) Workspaces(ctx context.Context, dir string) ([]Workspace, error) {
	var out []Workspace
	cond, args := workspaceCond("workspace_key", dir)
	const modified = "coalesce(max(CASE WHEN entries > 0 THEN modified_ms END), max(modified_ms))"
	err := d.db.SelectContext(ctx, &out, `SELECT workspace, count(*) AS sessions, sum(entries) AS entries,
		`+modified+` AS modified_ms FROM sessions WHERE 1=1`+cond+` GROUP BY workspace
		ORDER BY (sum(entries) = 0), coalesce(`+modified+`, 0) DESC, workspace`, args...)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return out, nil
}

// HoldsWorkspace reports whether some session's workspace is dir or below
// it (UnderWorkspace), dir taken as it is written.
func (d *DB) HoldsWorkspace(ctx context.Context, dir string) (bool, error) {
	cond, args := workspaceCond("workspace_key", dir)
	var has bool
	err := d.db.GetContext(ctx, &has, "SELECT EXISTS (SELECT 1 FROM sessions WHERE 1=1"+cond+")", args...)
	if err != nil {
		return false, fmt.Errorf("find workspace %q: %w", dir, err)
	}
	return has, nil
}

const entryCols = "e.seq, e.entry_id, e.parent_id, e.type, e.role, e.ts_ms, e.line, e.offset, e.length, e.crc, e.first_kept"

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

// Sidechain reports whether the first entry of session sid with id entryID
// (file order) is a Claude Code sidechain entry (isSidechain: true, SPEC
// §3.4); false when there is no such entry.
func (d *DB) Sidechain(ctx context.Context, sid int64, entryID string) (bool, error) {
	var side []bool
	if err := d.db.SelectContext(ctx, &side, "SELECT side FROM entries WHERE sid = ? AND entry_id = ? ORDER BY seq LIMIT 1", sid, entryID); err != nil {
		return false, err
	}
	return len(side) > 0 && side[0], nil
}

// HasSidechain reports whether session sid holds a sidechain entry (a
// Claude Code entry with isSidechain: true, migration 6): a session
// without one has no inline sub-agent run, and its leaves need no look.
// Errors are the database's.
func (d *DB) HasSidechain(ctx context.Context, sid int64) (bool, error) {
	var n []int
	if err := d.selectCached(ctx, &n, "SELECT 1 FROM entries WHERE sid = ? AND side = 1 LIMIT 1", sid); err != nil {
		return false, fmt.Errorf("sidechain entries: %w", err)
	}
	return len(n) > 0, nil
}

// InRun reports whether the entry entryID of session sid belongs to an
// inline sub-agent run: a sidechain entry (isSidechain: true) of a session
// whose active leaf is on the main chain (SPEC §3.4). In a file of
// sidechain entries only (a sub-agent's own file) none does.
func (d *DB) InRun(ctx context.Context, sid int64, entryID string) (bool, error) {
	var n []int
	err := d.db.SelectContext(ctx, &n, `SELECT 1 FROM entries e JOIN sessions s ON s.sid = e.sid JOIN entries a ON a.sid = s.sid AND a.entry_id = s.active_leaf
		WHERE e.sid = ? AND e.entry_id = ? AND e.side = 1 AND a.side = 0 LIMIT 1`, sid, entryID)
	return len(n) > 0, err
}

// EntryIDsFrom returns up to two distinct entry ids of session sid that
// begin with prefix (file order): one names the entry a prefix stands for,
// two say it is ambiguous.
func (d *DB) EntryIDsFrom(ctx context.Context, sid int64, prefix string) ([]string, error) {
	var ids []string
	err := d.db.SelectContext(ctx, &ids, `SELECT entry_id FROM entries WHERE sid = ? AND substr(entry_id, 1, CAST(? AS INTEGER)) = ?
		GROUP BY entry_id ORDER BY min(seq) LIMIT 2`, sid, len([]rune(prefix)), prefix)
	return ids, err
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
	if err := d.selectCached(ctx, &rows, "SELECT target_id, label FROM labels WHERE sid = ?", sid); err != nil {
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
	var has bool
	err := d.db.GetContext(ctx, &has, "SELECT EXISTS (SELECT 1 FROM entries WHERE "+column+" = ?)", value)
	return has, err
}

// EditedSessions returns which of the sessions sids hold a context_edit
// entry (pi 1.x, SPEC §4.1) on the path to their active leaf: search
// marks the hits such an edit changed (archive). The partial index
// entries_context_edits (schema version 12) holds those entries alone, so
// no session's entries are scanned.
func (d *DB) EditedSessions(ctx context.Context, sids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	for lo := 0; lo < len(sids); lo += fillBatch {
		batch := sids[lo:min(len(sids), lo+fillBatch)]
		args := make([]any, len(batch))
		for i, s := range batch {
			args[i] = s
		}
		var found []int64
		// The literal type, not a parameter: SQLite uses a partial index
		// only for a query whose WHERE names its term as written; and by
		// name, as its planner, without statistics, takes the primary key.
		from := d.sq("entries INDEXED BY entries_context_edits", "entries")
		if err := d.db.SelectContext(ctx, &found, `SELECT DISTINCT sid FROM `+from+`
			WHERE type = 'context_edit' AND active = 1 AND sid IN (`+strings.TrimSuffix(strings.Repeat("?,", len(batch)), ",")+`)`, args...); err != nil {
			return nil, fmt.Errorf("edited sessions: %w", err)
		}
		for _, s := range found {
			out[s] = true
		}
	}
	return out, nil
}

// CountSessions returns how many sessions the index holds.
func (d *DB) CountSessions(ctx context.Context) (int, error) {
	var n int
	err := d.db.GetContext(ctx, &n, "SELECT count(*) FROM sessions")
	return n, err
}

// Totals is how many sessions the index holds and the entries they hold
// together. Errors are the database's.
func (d *DB) Totals(ctx context.Context) (sessions, entries int, err error) {
	var t struct {
		Sessions int `db:"sessions"`
		Entries  int `db:"entries"`
	}
	err = d.db.GetContext(ctx, &t, "SELECT count(*) AS sessions, coalesce(sum(entries), 0) AS entries FROM sessions")
	return t.Sessions, t.Entries, err
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
	rows, err := d.db.QueryContext(ctx, "SELECT "+entryCols+", e.side, e.kind, e.path_kind FROM entries e WHERE e.sid = ? ORDER BY e.seq", sid)
	if err != nil {
		return nil, fmt.Errorf("entries: %w", err)
	}
	defer rows.Close()
	out := make([]Entry, 0, n)
	for rows.Next() {
		var e Entry
		if err := rows.Scan(&e.Seq, &e.EntryID, &e.ParentID, &e.Type, &e.Role, &e.TsMs, &e.Line, &e.Offset, &e.Length, &e.CRC, &e.FirstKept, &e.Side, &e.Kind, &e.PathKind); err != nil {
			return nil, fmt.Errorf("entries: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entries: %w", err)
	}
	return out, nil
}

// RunRow is what verify checks of an entry row beyond its edge: its run
// and pos (nil for a session indexed before migration 8) and its active
// mark.
type RunRow struct {
	Run, Pos *int
	Active   bool
}

// RunsOf returns the run, pos and active mark of every entry row of
// session sid in file order, scanned by hand as EntriesOf is.
func (d *DB) RunsOf(ctx context.Context, sid int64) ([]RunRow, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT run, pos, active FROM entries WHERE sid = ? ORDER BY seq", sid)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	defer rows.Close()
	var out []RunRow
	for rows.Next() {
		var r RunRow
		if err := rows.Scan(&r.Run, &r.Pos, &r.Active); err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	return out, nil
}
