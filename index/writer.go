package index

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// SessionWriter stores one session file in a Batch (SPEC §6): all of it
// (Replace) or the lines appended since the last read (Append). Rows are
// written as they are added; a Replace keeps only each entry's tree fields
// (id, parent id, line, offset, side: tens of bytes an entry, never its
// text) for Commit.
//
// The caller adds entries and diagnostics in file order, label changes with
// SetLabel, fills in the file facts of Session(), then calls Commit, which
// works out what needs the whole session: the first duplicated id, the
// number of leaves, the path to the active leaf (in Go from the entries'
// tree fields for a Replace, in SQL for an Append) and the state. Rollback
// (deferred) undoes an unfinished writer.
type SessionWriter struct {
	b       *Batch
	tx      *wtx
	sp      string // the savepoint this writer's rows are under
	done    bool
	own     bool // the writer's batch is its own: Commit commits it
	s       *Session
	base    int     // seq of the first entry this writer adds
	seq     int     // seq of the next entry
	diag    int     // seq of the next diagnostic
	oldLeaf *string // the active leaf before this writer
	text    int     // the batch's held text from this index on is this writer's
	labels  map[string]string
	order   []string // label targets in the order they were first changed
	tree    *treeLog // the added entries' runs; for a Replace their tree fields, for Commit's tree facts in Go
	// bytesFrom is where the file's committed bytes this writer stores
	// begin (PostgreSQL, SPEC §10): 0 for a Replace, the committed length
	// read before for an Append; lines are the added entries' lines, to
	// check the stored bytes against.
	bytesFrom int64
	lines     []lineSpan
	// held are a whole read's entry rows in PostgreSQL, inserted at Commit
	// with their active marks (holdsRows).
	held []Entry
}

// holdsRows reports whether the writer holds its entry rows until Commit
// instead of inserting them as they come: a whole read in PostgreSQL.
// There they are inserted with their active marks set, as one UPDATE of
// the active path afterwards made a new version of every row on it, each
// in every index of entries (6.6 s of an 18.7 s index of a 110,000-entry
// chain, growing faster than the chain).
func (w *SessionWriter) holdsRows() bool {
	return w.b.d.db.pg && w.tree.whole && !sqlTreeFacts
}

// Replace starts replacing whatever the index holds for s.Path with a
// new read of the whole file. s needs only Path; the rest is filled in by
// the writer and by the caller before Commit.
func (b *Batch) Replace(ctx context.Context, s *Session) (*SessionWriter, error) {
	sp, err := b.savepoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", s.Path, err)
	}
	w := &SessionWriter{b: b, tx: b.tx, sp: sp, s: s, text: len(b.text), tree: newTreeLog(true, 0)}
	b.w = w
	if err := b.d.deleteSession(ctx, b.tx, s.Path, !b.keepStored); err != nil {
		w.Rollback()
		return nil, err
	}
	s.Source = b.d.source
	if err := b.tx.GetContext(ctx, &s.SID, `INSERT INTO sessions
		(source, path, session_id, dialect, entries, leaves, lines, state, file_size, file_mtime_ns, file_dev, file_ino,
		 committed_len, indexed_at_ms)
		VALUES (?, ?, ?, ?, 0, 0, 0, 'ok', 0, 0, 0, 0, 0, 0) RETURNING sid`, s.Source, s.Path, s.SessionID, s.Dialect); err != nil {
		w.Rollback()
		return nil, fmt.Errorf("index %s: insert session: %w", s.Path, err)
	}
	w.bytesFrom = 0
	s.Entries, s.Leaves, s.DuplicateID, s.ActiveLeaf, s.MinTsMs, s.MaxTsMs = 0, 0, nil, nil, nil, nil
	s.ActivityMs, s.FirstMessage = nil, nil
	return w, nil
}

// Append starts adding the lines appended to the file of session sid
// since it was last read. The writer's Session is the row as stored; the
// caller updates its file facts before Commit. Errors: the session is gone.
func (b *Batch) Append(ctx context.Context, sid int64) (*SessionWriter, error) {
	sp, err := b.savepoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	w := &SessionWriter{b: b, tx: b.tx, sp: sp, text: len(b.text)}
	b.w = w
	var s Session
	if err := b.tx.GetContext(ctx, &s, "SELECT "+sessionCols+" FROM sessions s WHERE s.sid = ?", sid); err != nil {
		w.Rollback()
		return nil, fmt.Errorf("index: session %d: %w", sid, err)
	}
	var diag int
	if err := b.tx.GetContext(ctx, &diag, "SELECT coalesce(max(seq), -1) + 1 FROM diagnostics WHERE sid = ?", sid); err != nil {
		w.Rollback()
		return nil, fmt.Errorf("index %s: %w", s.Path, err)
	}
	w.s, w.base, w.seq, w.diag, w.oldLeaf = &s, s.Entries, s.Entries, diag, s.ActiveLeaf
	w.bytesFrom = s.CommittedLen
	w.tree = newTreeLog(false, s.Entries)
	var legacy []bool // stored before migration 8: no runs
	if err := b.tx.SelectContext(ctx, &legacy, "SELECT run IS NULL FROM entries WHERE sid = ? AND seq = 0", sid); err != nil {
		w.Rollback()
		return nil, fmt.Errorf("index %s: %w", s.Path, err)
	}
	w.tree.legacy = len(legacy) > 0 && legacy[0]
	return w, nil
}

// BeginReplace is Replace in a batch of its own, committed by Commit.
func (d *DB) BeginReplace(ctx context.Context, s *Session) (*SessionWriter, error) {
	return d.alone(ctx, func(b *Batch) (*SessionWriter, error) { return b.Replace(ctx, s) })
}

// BeginAppend is Append in a batch of its own, committed by Commit.
func (d *DB) BeginAppend(ctx context.Context, sid int64) (*SessionWriter, error) {
	return d.alone(ctx, func(b *Batch) (*SessionWriter, error) { return b.Append(ctx, sid) })
}

// alone begins a batch for the one writer begin makes.
func (d *DB) alone(ctx context.Context, begin func(*Batch) (*SessionWriter, error)) (*SessionWriter, error) {
	b, err := d.BeginBatch(ctx)
	if err != nil {
		return nil, err
	}
	w, err := begin(b)
	if err != nil {
		b.Rollback()
		return nil, err
	}
	w.own = true
	return w, nil
}

// Session is the row being written. What the file says of itself
// (SessionID, Dialect, Version, Workspace, Name, ParentSession, HeaderMs,
// ActivityMs, FirstMessage)
// and the file facts (FileSize, FileMtimeNs, FileDev, FileIno,
// CommittedLen, Lines, HeadCRC, TailCRC, Resumable) are the caller's to set
// before Commit; the writer keeps the rest.
func (w *SessionWriter) Session() *Session { return w.s }

// AddEntries stores entries (in file order, after those already stored)
// with their search text. It sets each entry's Seq and Doc; an entry
// without a timestamp files its doc number under the latest time of the
// entries before it, else 0.
// insertEntries inserts the rows of entries, with their Active marks.
func (w *SessionWriter) insertEntries(ctx context.Context, entries []Entry) error {
	sid := w.s.SID
	return insertRows(ctx, w.tx, "entries", []string{"sid", "seq", "entry_id", "parent_id", "type", "role", "ts_ms", "line", "offset", "length", "crc", "doc", "active", "first_kept", "side", "copy_crc", "run", "pos"}, len(entries),
		func(i int) []any {
			e := &entries[i]
			run, pos := w.tree.runOf(e.Seq)
			return []any{sid, e.Seq, e.EntryID, e.ParentID, e.Type, e.Role, e.TsMs, e.Line, e.Offset, e.Length, e.CRC, e.Doc, e.Active, e.FirstKept, e.Side, e.CopyCRC, run, pos}
		})
}

func (w *SessionWriter) AddEntries(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	k, err := w.docNumbers(ctx, len(entries))
	if err != nil {
		return fmt.Errorf("index %s: doc counter: %w", w.s.Path, err)
	}
	s := w.s
	for i := range entries {
		e := &entries[i]
		e.Seq = w.seq
		w.seq++
		var ts int64
		switch {
		case e.TsMs != nil:
			ts = *e.TsMs
			if s.MinTsMs == nil || ts < *s.MinTsMs {
				s.MinTsMs = ptr(ts)
			}
			if s.MaxTsMs == nil || ts > *s.MaxTsMs {
				s.MaxTsMs = ptr(ts)
			}
		case s.MaxTsMs != nil:
			ts = *s.MaxTsMs
		}
		e.Doc = DocNumber(ts, k+int64(i))
	}
	lookup := w.lookupStored(ctx) // an append: parents may be stored
	if w.tree.whole {
		lookup = nil
	}
	if err := w.tree.add(entries, lookup); err != nil {
		return fmt.Errorf("index %s: %w", s.Path, err)
	}
	if w.holdsRows() {
		for i := range entries {
			e := entries[i]
			e.Text = nil // the reader's buffer: not kept
			w.held = append(w.held, e)
		}
	} else if err := w.insertEntries(ctx, entries); err != nil {
		return fmt.Errorf("index %s: insert entries: %w", s.Path, err)
	}
	if w.b.d.keepBytes || w.b.d.keeper != nil {
		for i := range entries {
			w.lines = append(w.lines, lineSpan{entries[i].Offset, entries[i].Length, entries[i].CRC, entries[i].Line})
		}
	}
	if err := w.b.holdEntriesText(ctx, entries); err != nil {
		return fmt.Errorf("index %s: insert search text: %w", s.Path, err)
	}
	last := entries[len(entries)-1].EntryID
	s.ActiveLeaf = &last // the last entry in file order (SPEC §4)
	s.Entries = w.seq
	return nil
}

// AddDiagnostics stores diagnostics after those already stored.
func (w *SessionWriter) AddDiagnostics(ctx context.Context, diags []Diagnostic) error {
	base := w.diag
	w.diag += len(diags)
	if err := insertRows(ctx, w.tx, "diagnostics", []string{"sid", "seq", "severity", "code", "line", "offset", "message"}, len(diags),
		func(i int) []any {
			g := &diags[i]
			return []any{w.s.SID, base + i, g.Severity, g.Code, g.Line, g.Offset, g.Message}
		}); err != nil {
		return fmt.Errorf("index %s: insert diagnostics: %w", w.s.Path, err)
	}
	return nil
}

// DropTail removes the stored unterminated_tail warning: an append reads
// the file again from its committed length, tail included.
func (w *SessionWriter) DropTail(ctx context.Context) error {
	_, err := w.tx.ExecContext(ctx, "DELETE FROM diagnostics WHERE sid = ? AND code = 'unterminated_tail'", w.s.SID)
	return err
}

// SetLabel records a pi label entry in file order: the last label for a
// target wins and an empty label clears it (pi's rule, SPEC §4).
func (w *SessionWriter) SetLabel(target, label string) {
	if w.labels == nil {
		w.labels = map[string]string{}
	}
	if _, ok := w.labels[target]; !ok {
		w.order = append(w.order, target)
	}
	w.labels[target] = label
}

// Commit finishes the session: its rows stay in the batch (and are
// committed with it; at once for a writer from DB.BeginReplace or
// DB.BeginAppend).
func (w *SessionWriter) Commit(ctx context.Context) error {
	s, tx, sid := w.s, w.tx, w.s.SID
	// The kept bytes first (SPEC §11), before any statement of the commit:
	// a Ctrl-C while they are written fails the statements that follow, as
	// it would anywhere else in the commit.
	if k := w.b.d.keeper; k != nil && !w.b.keepStored {
		if err := k.Keep(ctx, s, w.bytesFrom, func(sink func(int64, []byte) error) error { return w.streamBytes(sink) }); err != nil {
			return fmt.Errorf("index %s: keep committed bytes: %w", s.Path, err)
		}
	}
	for _, t := range w.order {
		if _, err := tx.ExecContext(ctx, "DELETE FROM labels WHERE sid = ? AND target_id = ?", sid, t); err != nil {
			return fmt.Errorf("index %s: labels: %w", s.Path, err)
		}
		if l := w.labels[t]; l != "" {
			if _, err := tx.ExecContext(ctx, "INSERT INTO labels (sid, target_id, label) VALUES (?, ?, ?)", sid, t, l); err != nil {
				return fmt.Errorf("index %s: labels: %w", s.Path, err)
			}
		}
	}
	if w.seq > w.base {
		facts := w.treeFacts // an append: index lookups per added entry
		if w.tree.whole && !sqlTreeFacts {
			facts = w.goTreeFacts // a whole read: no query over the rows just written
		}
		if err := facts(ctx); err != nil {
			return fmt.Errorf("index %s: %w", s.Path, err)
		}
	}
	if err := w.storeKinds(ctx); err != nil {
		return fmt.Errorf("index %s: %w", s.Path, err)
	}
	s.CreatedMs = s.MinTsMs // the header's time, else the earliest entry's
	if s.HeaderMs != nil && *s.HeaderMs != 0 {
		s.CreatedMs = s.HeaderMs
	}
	s.ModifiedMs = modified(s)
	s.WorkspaceKey = WorkspaceKey(s.Workspace)
	s.IndexedAtMs = time.Now().UnixMilli()
	s.StatKey = 0
	if s.Gone {
		s.StatKey = GoneKey // no file to look at (MarkGone)
	} else if s.IndexedAtMs-s.FileMtimeNs/1e6 >= RacyWindowMs {
		s.StatKey = StatKey(s.FileSize, s.FileMtimeNs, s.FileDev, s.FileIno)
	}
	if _, err := tx.NamedExecContext(ctx, `UPDATE sessions SET
		session_id = :session_id, dialect = :dialect, version = :version, parent_session = :parent_session,
		header_ms = :header_ms, workspace = :workspace, workspace_key = :workspace_key, name = :name, first_message = :first_message, activity_ms = :activity_ms, created_ms = :created_ms, modified_ms = :modified_ms,
		entries = :entries, leaves = :leaves, real_leaves = :real_leaves, lines = :lines, active_leaf = :active_leaf, duplicate_id = :duplicate_id,
		file_size = :file_size, file_mtime_ns = :file_mtime_ns, file_dev = :file_dev, file_ino = :file_ino,
		committed_len = :committed_len, indexed_at_ms = :indexed_at_ms, head_crc = :head_crc, tail_crc = :tail_crc,
		resumable = :resumable, min_ts_ms = :min_ts_ms, max_ts_ms = :max_ts_ms, stat_key = :stat_key, gone = :gone
		WHERE sid = :sid`, s); err != nil {
		return fmt.Errorf("index %s: update session: %w", s.Path, err)
	}
	// The state from the stored diagnostics: bad lines and a duplicated id
	// make a session damaged, which wins over an unterminated tail (§8).
	if err := tx.GetContext(ctx, &s.State, `UPDATE sessions SET state = CASE
			WHEN EXISTS (SELECT 1 FROM diagnostics WHERE sid = ?1 AND code = 'unsupported_compression') THEN 'unsupported'
			WHEN duplicate_id IS NOT NULL OR EXISTS (SELECT 1 FROM diagnostics WHERE sid = ?1 AND severity = 'error') THEN 'damaged'
			WHEN EXISTS (SELECT 1 FROM diagnostics WHERE sid = ?1 AND code = 'unterminated_tail') THEN 'needs-repair'
			ELSE 'ok' END
		WHERE sid = ?1 RETURNING state`, sid); err != nil {
		return fmt.Errorf("index %s: state: %w", s.Path, err)
	}
	if w.b.d.keepBytes && !w.b.keepStored {
		if err := w.storeBytes(ctx); err != nil {
			return fmt.Errorf("index %s: store committed bytes: %w", s.Path, err)
		}
	}
	if w.sp != "" {
		if _, err := tx.tx.ExecContext(ctx, "RELEASE "+w.sp); err != nil {
			return fmt.Errorf("index %s: %w", s.Path, err)
		}
	}
	w.done = true
	w.b.w = nil
	w.b.done++
	if w.own {
		return w.b.Commit()
	}
	return nil
}

// modified is a session's modified time (SPEC §3.2, pi's /resume order):
// its latest user or assistant message time; else the pi header's time;
// else, for a plain file (no header), its latest entry time; else the
// file's mtime.
func modified(s *Session) *int64 {
	switch {
	case s.ActivityMs != nil && *s.ActivityMs > 0:
		return s.ActivityMs
	case s.HeaderMs != nil && *s.HeaderMs != 0:
		return s.HeaderMs
	case agent.Of(jsonl.Dialect(s.Dialect)).Traits().ModifiedByEntryTime && s.MaxTsMs != nil:
		return s.MaxTsMs
	}
	return ptr(s.FileMtimeNs / 1e6)
}

// Rollback undoes an unfinished writer's rows; after Commit it does
// nothing. The batch goes on, unless this was its first writer: then the
// whole batch is rolled back (see Batch.Dead).
func (w *SessionWriter) Rollback() {
	if w.done {
		return
	}
	w.done = true
	w.b.w = nil
	if w.own || w.sp == "" {
		w.b.Rollback()
		w.b.dead = true
		return
	}
	w.tx.tx.Exec("ROLLBACK TO " + w.sp)
	w.tx.tx.Exec("RELEASE " + w.sp)
	w.b.dropText(w.text)
}

// HasEntry reports whether the session holds an entry with id, among the
// entries stored so far (those of earlier reads and the batches added).
// The planner takes entries_by_id; a cold build, which makes its indexes
// at the end (OpenBuild), scans the session's rows.
func (w *SessionWriter) HasEntry(ctx context.Context, id string) (bool, error) {
	if w.held != nil { // not inserted yet: the tree knows every id added
		_, ok := w.tree.first[id]
		return ok, nil
	}
	var n int
	if err := w.tx.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM entries WHERE sid = ? AND entry_id = ? LIMIT 1) AS x`, w.s.SID, id); err != nil {
		return false, fmt.Errorf("index %s: look up entry: %w", w.s.Path, err)
	}
	return n > 0, nil
}

// HasCopy reports whether the session holds an entry whose copy CRC is
// crc, among the entries stored so far (jsonl.CopyAt: an append counts the
// earlier items of a payload with it).
func (w *SessionWriter) HasCopy(ctx context.Context, crc uint32) (bool, error) {
	if w.held != nil {
		for _, e := range w.held {
			if e.CopyCRC == crc {
				return true, nil
			}
		}
		return false, nil
	}
	var n int
	if err := w.tx.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM entries WHERE sid = ? AND copy_crc = ? LIMIT 1) AS x`, w.s.SID, crc); err != nil {
		return false, fmt.Errorf("index %s: look up a copy: %w", w.s.Path, err)
	}
	return n > 0, nil
}

// LastOffsetOf is the byte offset of the last entry stored so far, in file
// order, whose type and role are one of kinds (a kind's Role "" matches
// any role); ok is false when there is none. An append reads on from a
// Codex turn's start with it (jsonl.Resume.Turn).
func (w *SessionWriter) LastOffsetOf(ctx context.Context, kinds []jsonl.EntryKind) (off int64, ok bool, err error) {
	if len(kinds) == 0 {
		return 0, false, nil
	}
	var cond []string
	args := []any{w.s.SID}
	for _, k := range kinds {
		if k.Role == "" {
			cond = append(cond, "type = ?")
			args = append(args, k.Type)
		} else {
			cond = append(cond, "(type = ? AND role = ?)")
			args = append(args, k.Type, k.Role)
		}
	}
	var offs []int64
	q := `SELECT "offset" FROM entries WHERE sid = ? AND (` + strings.Join(cond, " OR ") + `) ORDER BY seq DESC LIMIT 1`
	if err := w.tx.SelectContext(ctx, &offs, q, args...); err != nil {
		return 0, false, fmt.Errorf("index %s: look up the last turn: %w", w.s.Path, err)
	}
	if len(offs) == 0 {
		return 0, false, nil
	}
	return offs[0], true, nil
}

func ptr[T any](v T) *T { return &v }
