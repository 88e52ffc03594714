package index

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Session is one session file as the index stores it (SPEC §6). Times are
// Unix milliseconds; a nil pointer is an unknown time.
type Session struct {
	SID           int64   `db:"sid"`
	Path          string  `db:"path"`
	SessionID     string  `db:"session_id"`
	Dialect       string  `db:"dialect"`
	Version       int     `db:"version"`
	Workspace     string  `db:"workspace"`
	Name          string  `db:"name"`
	ParentSession string  `db:"parent_session"`
	CreatedMs     *int64  `db:"created_ms"`
	ModifiedMs    *int64  `db:"modified_ms"`
	Entries       int     `db:"entries"`
	Leaves        int     `db:"leaves"`
	Lines         int     `db:"lines"`
	State         string  `db:"state"`
	ActiveLeaf    *string `db:"active_leaf"`
	DuplicateID   *string `db:"duplicate_id"`
	FileSize      int64   `db:"file_size"`
	FileMtimeNs   int64   `db:"file_mtime_ns"`
	FileDev       int64   `db:"file_dev"`
	FileIno       int64   `db:"file_ino"`
	CommittedLen  int64   `db:"committed_len"`
	IndexedAtMs   int64   `db:"indexed_at_ms"`
	Diagnostics   int     `db:"diagnostics"` // filled by queries, not stored
}

// Entry is one entry row: the tree edge and where its line is in the file.
// Message bodies are not stored; they are read back by Offset and Length.
type Entry struct {
	Seq      int     `db:"seq"`
	EntryID  string  `db:"entry_id"`
	ParentID *string `db:"parent_id"` // nil for a root
	Type     string  `db:"type"`
	Role     *string `db:"role"`
	TsMs     *int64  `db:"ts_ms"`
	Line     int     `db:"line"`
	Offset   int64   `db:"offset"`
	Length   int     `db:"length"`
	CRC      uint32  `db:"crc"`
	// Active is set when the entry is on the path from the root to the
	// session's active leaf (`grove search --branch active`).
	Active bool `db:"active"`
	// Doc is the entry's rowid in the full-text index, set by Replace.
	Doc int64 `db:"doc"`
	// Text is the entry's search text (SPEC §7, jsonl.AppendSearchText),
	// stored only as tokens; nil for an entry with none.
	Text []byte `db:"-"`
}

// Diagnostic is a stored bad line or warning of a session file.
type Diagnostic struct {
	Severity string `db:"severity"` // "error" or "warning"
	Code     string `db:"code"`
	Line     int    `db:"line"`
	Offset   int64  `db:"offset"`
	Message  string `db:"message"`
}

// Label is the label a pi label entry gives an entry (last one wins).
type Label struct {
	TargetID string `db:"target_id"`
	Label    string `db:"label"`
}

// maxParams bounds the values bound by one statement (SQLite's limit is
// 32,766).
const maxParams = 30000

// Replace stores s with its entries, diagnostics and labels in one
// transaction, replacing whatever the index held for s.Path (SPEC §6). It
// then computes, in SQL, the session's first duplicated id and its number of
// leaves. It returns the session's row id.
func (d *DB) Replace(ctx context.Context, s *Session, entries []Entry, diags []Diagnostic, labels []Label) (int64, error) {
	tx, err := d.db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", s.Path, err)
	}
	defer tx.Rollback()
	if err := deleteSession(ctx, tx, s.Path); err != nil {
		return 0, err
	}
	s.IndexedAtMs = time.Now().UnixMilli()
	res, err := tx.NamedExecContext(ctx, `INSERT INTO sessions
		(path, session_id, dialect, version, workspace, name, parent_session, created_ms, modified_ms,
		 entries, leaves, lines, state, active_leaf, file_size, file_mtime_ns, file_dev, file_ino,
		 committed_len, indexed_at_ms)
		VALUES (:path, :session_id, :dialect, :version, :workspace, :name, :parent_session, :created_ms, :modified_ms,
		 :entries, 0, :lines, :state, :active_leaf, :file_size, :file_mtime_ns, :file_dev, :file_ino,
		 :committed_len, :indexed_at_ms)`, s)
	if err != nil {
		return 0, fmt.Errorf("index %s: insert session: %w", s.Path, err)
	}
	sid, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	s.SID = sid
	if err := assignDocs(ctx, tx, s, entries); err != nil {
		return 0, fmt.Errorf("index %s: %w", s.Path, err)
	}
	if err := insertRows(ctx, tx, "entries", []string{"sid", "seq", "entry_id", "parent_id", "type", "role", "ts_ms", "line", "offset", "length", "crc", "doc", "active"}, len(entries),
		func(i int) []any {
			e := &entries[i]
			return []any{sid, e.Seq, e.EntryID, e.ParentID, e.Type, e.Role, e.TsMs, e.Line, e.Offset, e.Length, e.CRC, e.Doc, e.Active}
		}); err != nil {
		return 0, fmt.Errorf("index %s: insert entries: %w", s.Path, err)
	}
	if err := insertText(ctx, tx, entries); err != nil {
		return 0, fmt.Errorf("index %s: insert search text: %w", s.Path, err)
	}
	if err := insertRows(ctx, tx, "diagnostics", []string{"sid", "seq", "severity", "code", "line", "offset", "message"}, len(diags),
		func(i int) []any {
			g := &diags[i]
			return []any{sid, i, g.Severity, g.Code, g.Line, g.Offset, g.Message}
		}); err != nil {
		return 0, fmt.Errorf("index %s: insert diagnostics: %w", s.Path, err)
	}
	if err := insertRows(ctx, tx, "labels", []string{"sid", "target_id", "label"}, len(labels),
		func(i int) []any { return []any{sid, labels[i].TargetID, labels[i].Label} }); err != nil {
		return 0, fmt.Errorf("index %s: insert labels: %w", s.Path, err)
	}
	// SPEC §4 rule 1, in SQL: the first entry, in file order, whose id an
	// earlier entry already has.
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET
		duplicate_id = (SELECT e2.entry_id FROM entries e2
			WHERE e2.sid = ?1 AND EXISTS (SELECT 1 FROM entries e1 INDEXED BY entries_by_id
				WHERE e1.sid = e2.sid AND e1.entry_id = e2.entry_id AND e1.seq < e2.seq)
			ORDER BY e2.seq LIMIT 1),
		leaves = (SELECT count(*) FROM entries e WHERE e.sid = ?1 AND NOT EXISTS
			(SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = e.sid AND c.parent_id = e.entry_id))
		WHERE sid = ?1`, sid); err != nil {
		return 0, fmt.Errorf("index %s: tree summary: %w", s.Path, err)
	}
	// A duplicated id makes the session damaged and is shown as a
	// diagnostic on the line where the id appears the second time.
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET state = 'damaged'
		WHERE sid = ? AND duplicate_id IS NOT NULL`, sid); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO diagnostics (sid, seq, severity, code, line, offset, message)
		SELECT ?1, (SELECT coalesce(max(seq), -1) + 1 FROM diagnostics WHERE sid = ?1), 'error', 'duplicate_id',
			e.line, e.offset,
			'entry id "' || e.entry_id || '" is used by more than one entry (lines ' ||
			(SELECT group_concat(line, ', ') FROM (SELECT line FROM entries INDEXED BY entries_by_id
				WHERE sid = ?1 AND entry_id = e.entry_id ORDER BY seq)) || '); every path in this session is ambiguous'
		FROM entries e INDEXED BY entries_by_id
		WHERE e.sid = ?1 AND e.entry_id = (SELECT duplicate_id FROM sessions WHERE sid = ?1)
		ORDER BY e.seq LIMIT 1 OFFSET 1`, sid); err != nil {
		return 0, fmt.Errorf("index %s: duplicate diagnostic: %w", s.Path, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("index %s: commit: %w", s.Path, err)
	}
	return sid, nil
}

// Remove deletes the session stored for path, if any, in one transaction.
func (d *DB) Remove(ctx context.Context, path string) error {
	tx, err := d.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := deleteSession(ctx, tx, path); err != nil {
		return err
	}
	return tx.Commit()
}

func deleteSession(ctx context.Context, tx *sqlx.Tx, path string) error {
	var sids []int64
	if err := tx.SelectContext(ctx, &sids, "SELECT sid FROM sessions WHERE path = ?", path); err != nil {
		return fmt.Errorf("index %s: find old rows: %w", path, err)
	}
	for _, sid := range sids {
		if _, err := tx.ExecContext(ctx, "DELETE FROM entry_text WHERE rowid IN (SELECT doc FROM entries WHERE sid = ?)", sid); err != nil {
			return fmt.Errorf("index %s: delete old search text: %w", path, err)
		}
		for _, table := range []string{"entries", "diagnostics", "labels", "sessions"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE sid = ?", sid); err != nil {
				return fmt.Errorf("index %s: delete old rows: %w", path, err)
			}
		}
	}
	return nil
}

// docBits is how many low bits of a doc number hold the counter.
const docBits = 31

// DocNumber returns the full-text rowid of an entry with timestamp tsMs
// (Unix milliseconds, clamped to [0, 2^32) seconds) and counter value k:
// (seconds << 31) | (k mod 2^31). Walking doc numbers downwards visits
// entries newest first, to the second.
func DocNumber(tsMs int64, k int64) int64 {
	sec := min(max(tsMs/1000, 0), 1<<32-1)
	return sec<<docBits | k&(1<<docBits-1)
}

// assignDocs gives each entry a doc number from the index-wide counter. An
// entry without a timestamp takes the session's creation time.
func assignDocs(ctx context.Context, tx *sqlx.Tx, s *Session, entries []Entry) error {
	var k int64
	if err := tx.GetContext(ctx, &k, "UPDATE counters SET value = value + ? WHERE name = 'doc' RETURNING value - ?", len(entries), len(entries)); err != nil {
		return fmt.Errorf("doc counter: %w", err)
	}
	var fallback int64
	if s.CreatedMs != nil {
		fallback = *s.CreatedMs
	}
	for i := range entries {
		ts := fallback
		if entries[i].TsMs != nil {
			ts = *entries[i].TsMs
		}
		entries[i].Doc = DocNumber(ts, k+int64(i))
	}
	return nil
}

// insertText stores the search text of entries, as tokens only, under
// their doc numbers.
func insertText(ctx context.Context, tx *sqlx.Tx, entries []Entry) error {
	var idx []int
	for i := range entries {
		if len(entries[i].Text) > 0 {
			idx = append(idx, i)
		}
	}
	return insertRows(ctx, tx, "entry_text", []string{"rowid", "text"}, len(idx), func(i int) []any {
		e := &entries[idx[i]]
		return []any{e.Doc, ftsText(e.Text)}
	})
}

// insertRows inserts n rows into table, as many per statement as maxParams
// allows; row(i) gives the values of row i in the order of cols.
func insertRows(ctx context.Context, tx *sqlx.Tx, table string, cols []string, n int, row func(i int) []any) error {
	if n == 0 {
		return nil
	}
	per := maxParams / len(cols)
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	head := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES "
	var full *sqlx.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	args := make([]any, 0, per*len(cols))
	for start := 0; start < n; start += per {
		end := min(start+per, n)
		args = args[:0]
		for i := start; i < end; i++ {
			args = append(args, row(i)...)
		}
		if end-start == per {
			if full == nil {
				var err error
				full, err = tx.PreparexContext(ctx, head+strings.TrimSuffix(strings.Repeat(one+",", per), ","))
				if err != nil {
					return err
				}
			}
			if _, err := full.ExecContext(ctx, args...); err != nil {
				return err
			}
			continue
		}
		q := head + strings.TrimSuffix(strings.Repeat(one+",", end-start), ",")
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}
