package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/grove-sessions/grove/jsonl"
)

// Batch is one write transaction holding the updates of several session
// files, each its own SessionWriter (SPEC §6). Readers see every
// session wholly before or wholly after; a file that fails half-way is
// rolled back to its savepoint and the others stay. Small files share a
// transaction because a commit, and the full-text index's flush at each
// one, cost more than indexing a small file.
type Batch struct {
	d    *DB
	tx   *wtx
	n    int // savepoints opened, for their names
	done int // writers committed into the batch
	dead bool
	w    *SessionWriter
}

// Dead reports whether the batch was rolled back whole (its first writer
// failed): begin a new one.
func (b *Batch) Dead() bool { return b.dead }

// BeginBatch starts a write transaction.
func (d *DB) BeginBatch(ctx context.Context) (*Batch, error) {
	tx, err := d.beginWrite(ctx)
	if err != nil {
		return nil, fmt.Errorf("index: begin: %w", err)
	}
	return &Batch{d: d, tx: tx}, nil
}

// Commit commits the batch. A SessionWriter still open is rolled back
// first.
func (b *Batch) Commit() error {
	if b.w != nil {
		b.w.Rollback()
	}
	if b.dead {
		return nil
	}
	if err := b.roomToFold(); err != nil {
		b.tx.Rollback()
		return fmt.Errorf("index: commit: %w", err)
	}
	if err := b.tx.Commit(); err != nil {
		return fmt.Errorf("index: commit: %w", err)
	}
	return nil
}

// foldMargin is what roomToFold allows, beyond the index file's growth, for
// the pages of the index a transaction changes in place (B-tree interior
// pages, FTS5 segments) and the WAL's frame headers.
const foldMargin = 256 << 10

// roomToFold returns a disk_full error (ENOSPC) when the file system of
// the index looks unable to hold both what the commit still writes to the
// WAL and, at the checkpoint after it, the index file grown by the same
// pages: free bytes fewer than the growth (page_count × page_size less the
// file's size), plus the pages the commit still writes to the WAL (no more
// than the growth, nor than the page cache, which spills into the WAL
// when full), plus foldMargin. A committed transaction that the
// checkpoint cannot fold into the index file holds its WAL, and the disk,
// full until there is room (README "A full disk"): refusing it
// before the commit leaves the WAL foldable, and truncated by the
// checkpoint that follows. Nil when the sizes cannot be known (a file
// system that reports no blocks at all is taken to have room).
func (b *Batch) roomToFold() error {
	var pages, size int64
	if err := b.tx.tx.Get(&pages, "PRAGMA page_count"); err != nil {
		return nil
	}
	if err := b.tx.tx.Get(&size, "PRAGMA page_size"); err != nil {
		return nil
	}
	fi, err := os.Stat(b.d.path)
	if err != nil {
		return nil
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(b.d.path), &fs); err != nil || fs.Blocks == 0 {
		return nil // some network and FUSE file systems report no sizes at all
	}
	var cache int64
	if err := b.tx.tx.Get(&cache, "PRAGMA cache_size"); err != nil {
		return nil
	}
	if cache < 0 {
		cache *= -1024 // KiB
	} else {
		cache *= size // pages
	}
	growth := max(0, pages*size-fi.Size())
	free := int64(fs.Bavail) * int64(fs.Bsize)
	if free < growth+min(growth, cache)+foldMargin {
		return &os.PathError{Op: "commit", Path: b.d.path, Err: syscall.ENOSPC}
	}
	return nil
}

// Rollback abandons the batch; after Commit it does nothing.
func (b *Batch) Rollback() { b.tx.Rollback() }

// Settle records that the file of session sid, whose stat was not
// trusted (see RacyWindowMs), was found unchanged by its bytes at nowMs:
// its stat key is statKey from now on.
func (b *Batch) Settle(ctx context.Context, sid, statKey, nowMs int64) error {
	if b.w != nil {
		b.w.Rollback()
	}
	_, err := b.tx.ExecContext(ctx, "UPDATE sessions SET stat_key = ?, indexed_at_ms = ? WHERE sid = ?", statKey, nowMs, sid)
	return err
}

// Remove deletes the session stored for path, if any.
func (b *Batch) Remove(ctx context.Context, path string) error {
	return deleteSession(ctx, b.tx, path)
}

// savepoint opens the savepoint of the next writer, except for the first
// writer of the batch: with nothing else in the transaction to keep, its
// rollback is the transaction's. (Every open savepoint makes FTS5 flush its
// pending terms at each statement: a third of the time of indexing a big
// file went to that.)
func (b *Batch) savepoint(ctx context.Context) (string, error) {
	if b.w != nil {
		b.w.Rollback()
	}
	if b.done == 0 {
		return "", nil
	}
	b.n++
	name := fmt.Sprintf("session_%d", b.n)
	_, err := b.tx.tx.ExecContext(ctx, "SAVEPOINT "+name)
	return name, err
}

// SessionWriter stores one session file in a Batch (SPEC §6): all of it
// (Replace) or the lines appended since the last read (Append). Rows are
// written as they are added, so memory does not grow with the file.
//
// The caller adds entries and diagnostics in file order, label changes with
// SetLabel, fills in the file facts of Session(), then calls Commit, which
// works out in SQL what needs the whole session: the first duplicated id,
// the number of leaves, the path to the active leaf and the state. Rollback
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
	labels  map[string]string
	order   []string // label targets in the order they were first changed
}

// Replace starts replacing whatever the index holds for s.Path with a
// new read of the whole file. s needs only Path; the rest is filled in by
// the writer and by the caller before Commit.
func (b *Batch) Replace(ctx context.Context, s *Session) (*SessionWriter, error) {
	sp, err := b.savepoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", s.Path, err)
	}
	w := &SessionWriter{b: b, tx: b.tx, sp: sp, s: s}
	b.w = w
	if err := deleteSession(ctx, b.tx, s.Path); err != nil {
		w.Rollback()
		return nil, err
	}
	res, err := b.tx.NamedExecContext(ctx, `INSERT INTO sessions
		(path, session_id, dialect, entries, leaves, lines, state, file_size, file_mtime_ns, file_dev, file_ino,
		 committed_len, indexed_at_ms)
		VALUES (:path, :session_id, :dialect, 0, 0, 0, 'ok', 0, 0, 0, 0, 0, 0)`, s)
	if err != nil {
		w.Rollback()
		return nil, fmt.Errorf("index %s: insert session: %w", s.Path, err)
	}
	if s.SID, err = res.LastInsertId(); err != nil {
		w.Rollback()
		return nil, err
	}
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
	w := &SessionWriter{b: b, tx: b.tx, sp: sp}
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
func (w *SessionWriter) AddEntries(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	var k int64
	if err := w.tx.GetContext(ctx, &k, "UPDATE counters SET value = value + ? WHERE name = 'doc' RETURNING value - ?", len(entries), len(entries)); err != nil {
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
	sid := s.SID
	if err := insertRows(ctx, w.tx, "entries", []string{"sid", "seq", "entry_id", "parent_id", "type", "role", "ts_ms", "line", "offset", "length", "crc", "doc", "active", "first_kept", "side", "copy_crc"}, len(entries),
		func(i int) []any {
			e := &entries[i]
			return []any{sid, e.Seq, e.EntryID, e.ParentID, e.Type, e.Role, e.TsMs, e.Line, e.Offset, e.Length, e.CRC, e.Doc, false, e.FirstKept, e.Side, e.CopyCRC}
		}); err != nil {
		return fmt.Errorf("index %s: insert entries: %w", s.Path, err)
	}
	if err := insertText(ctx, w.tx, entries); err != nil {
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
		if err := w.treeFacts(ctx); err != nil {
			return fmt.Errorf("index %s: %w", s.Path, err)
		}
	}
	s.CreatedMs = s.MinTsMs // the header's time, else the earliest entry's
	if s.HeaderMs != nil && *s.HeaderMs != 0 {
		s.CreatedMs = s.HeaderMs
	}
	s.ModifiedMs = modified(s)
	s.IndexedAtMs = time.Now().UnixMilli()
	s.StatKey = 0
	if s.IndexedAtMs-s.FileMtimeNs/1e6 >= RacyWindowMs {
		s.StatKey = StatKey(s.FileSize, s.FileMtimeNs, s.FileDev, s.FileIno)
	}
	if _, err := tx.NamedExecContext(ctx, `UPDATE sessions SET
		session_id = :session_id, dialect = :dialect, version = :version, parent_session = :parent_session,
		header_ms = :header_ms, workspace = :workspace, name = :name, first_message = :first_message, activity_ms = :activity_ms, created_ms = :created_ms, modified_ms = :modified_ms,
		entries = :entries, leaves = :leaves, lines = :lines, active_leaf = :active_leaf, duplicate_id = :duplicate_id,
		file_size = :file_size, file_mtime_ns = :file_mtime_ns, file_dev = :file_dev, file_ino = :file_ino,
		committed_len = :committed_len, indexed_at_ms = :indexed_at_ms, head_crc = :head_crc, tail_crc = :tail_crc,
		resumable = :resumable, min_ts_ms = :min_ts_ms, max_ts_ms = :max_ts_ms, stat_key = :stat_key
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
	case s.Dialect != string(jsonl.Pi) && s.MaxTsMs != nil:
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
}

// treeFacts updates, for the entries added (seq ≥ base), the session's
// first duplicated id and the diagnostics of every one (SPEC §4 rule 1),
// its number of leaves and the entries' active marks. Each costs index
// lookups per added entry, not a pass over the session, except where the
// new active path leaves the old one low down.
func (w *SessionWriter) treeFacts(ctx context.Context) error {
	s, tx, sid := w.s, w.tx, w.s.SID
	if s.DuplicateID == nil {
		var dup []string
		if err := tx.SelectContext(ctx, &dup, `SELECT n.entry_id FROM entries n
			WHERE n.sid = ?1 AND n.seq >= ?2 AND EXISTS (SELECT 1 FROM entries e INDEXED BY entries_by_id
				WHERE e.sid = ?1 AND e.entry_id = n.entry_id AND e.seq < n.seq)
			ORDER BY n.seq LIMIT 1`, sid, w.base); err != nil {
			return fmt.Errorf("duplicate ids: %w", err)
		}
		if len(dup) > 0 {
			s.DuplicateID = &dup[0]
		}
	}
	if s.DuplicateID != nil {
		if err := w.duplicates(ctx); err != nil {
			return fmt.Errorf("duplicate diagnostics: %w", err)
		}
	}
	// Leaves: an entry is one when no entry names its id as parent. New
	// entries that nobody names are new leaves; old leaves that a new entry
	// names are leaves no more.
	var delta int
	if err := tx.GetContext(ctx, &delta, `SELECT
		(SELECT count(*) FROM entries n WHERE n.sid = ?1 AND n.seq >= ?2 AND NOT EXISTS
			(SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = ?1 AND c.parent_id = n.entry_id))
		-
		(SELECT count(*) FROM entries o INDEXED BY entries_by_id
			WHERE o.sid = ?1 AND o.seq < ?2
			AND o.entry_id IN (SELECT n.parent_id FROM entries n WHERE n.sid = ?1 AND n.seq >= ?2 AND n.parent_id IS NOT NULL)
			AND NOT EXISTS (SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = ?1 AND c.parent_id = o.entry_id AND c.seq < ?2))`,
		sid, w.base); err != nil {
		return fmt.Errorf("leaves: %w", err)
	}
	s.Leaves += delta
	return w.markActive(ctx)
}

// dupSeconds selects, for every id of the entries at seq ≥ ?2 of session
// ?1 that an earlier entry also has, the seq of its second entry: where its
// duplicate_id diagnostic is.
const dupSeconds = `SELECT (SELECT x.seq FROM entries x INDEXED BY entries_by_id
			WHERE x.sid = ?1 AND x.entry_id = d.entry_id ORDER BY x.seq LIMIT 1 OFFSET 1)
		FROM (SELECT DISTINCT n.entry_id FROM entries n WHERE n.sid = ?1 AND n.seq >= ?2 AND EXISTS
			(SELECT 1 FROM entries e INDEXED BY entries_by_id WHERE e.sid = ?1 AND e.entry_id = n.entry_id AND e.seq < n.seq)) d`

// duplicates writes one duplicate_id diagnostic per id that the added
// entries (seq ≥ base) use again (SPEC §4 rule 1, §6): on the line of the
// id's second entry, naming its lines as jsonl.DuplicateLinesError does
// (at most ten, then how many more). An id that was already duplicated
// before is written again, as an append may add a line to it; ids the
// added entries do not touch keep their rows. Each costs index lookups per
// added entry, not a pass over the session.
func (w *SessionWriter) duplicates(ctx context.Context) error {
	tx, sid := w.tx, w.s.SID
	if w.base > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM diagnostics WHERE sid = ?1 AND code = 'duplicate_id' AND line IN
			(SELECT line FROM entries WHERE sid = ?1 AND seq IN (`+dupSeconds+`))`, sid, w.base); err != nil {
			return err
		}
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO diagnostics (sid, seq, severity, code, line, offset, message)
		SELECT ?1, ?3 + row_number() OVER (ORDER BY e.seq) - 1, 'error', 'duplicate_id', e.line, e.offset,
			'entry id "' || e.entry_id || '" is used by more than one entry (lines ' ||
			(SELECT group_concat(line, ', ') FROM (SELECT line FROM entries INDEXED BY entries_by_id
				WHERE sid = ?1 AND entry_id = e.entry_id ORDER BY seq LIMIT 10)) ||
			coalesce((SELECT ' and ' || (count(*) - 10) || ' more' FROM entries INDEXED BY entries_by_id
				WHERE sid = ?1 AND entry_id = e.entry_id HAVING count(*) > 10), '') ||
			'); every path in this session is ambiguous'
		FROM entries e WHERE e.sid = ?1 AND e.seq IN (`+dupSeconds+`)`, sid, w.base, w.diag)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	w.diag += int(n)
	return nil
}

// activeWalk walks from the entry at seq ?2 towards the root of session ?1,
// each parent taken as the first entry with that id, and stops after the
// first entry already marked active (or at a root, a missing parent, or a
// cycle: UNION drops a row met twice).
const activeWalk = `WITH RECURSIVE up(seq, parent_id, active) AS (
		SELECT seq, parent_id, active FROM entries WHERE sid = ?1 AND seq = ?2
		UNION
		SELECT e.seq, e.parent_id, e.active FROM up CROSS JOIN entries e
			ON e.sid = ?1 AND e.seq = (SELECT min(seq) FROM entries INDEXED BY entries_by_id WHERE sid = ?1 AND entry_id = up.parent_id)
		WHERE up.active = 0 AND up.parent_id IS NOT NULL
	)`

// markActive moves the active marks from the path to the old active leaf
// to the path to the new one (the last entry). The walk from the new leaf
// stops where it meets the old path; only the old path below that point is
// cleared. An append that continues the active branch touches one row.
func (w *SessionWriter) markActive(ctx context.Context) error {
	tx, sid := w.tx, w.s.SID
	mark := activeWalk + " UPDATE entries SET active = 1 WHERE sid = ?1 AND seq IN (SELECT seq FROM up WHERE active = 0)"
	newSeq, oldSeq := w.seq-1, w.base-1
	if w.s.Dialect == string(jsonl.Claude) {
		var err error
		if newSeq, oldSeq, err = w.claudeActive(ctx); err != nil {
			return fmt.Errorf("active leaf: %w", err)
		}
	}
	if w.oldLeaf == nil { // nothing is marked yet: one walk
		if _, err := tx.ExecContext(ctx, mark, sid, newSeq); err != nil {
			return fmt.Errorf("active path: %w", err)
		}
		return nil
	}
	var meet []int
	if err := tx.SelectContext(ctx, &meet, activeWalk+" SELECT seq FROM up WHERE active = 1", sid, newSeq); err != nil {
		return fmt.Errorf("active path: %w", err)
	}
	junction := -1
	if len(meet) > 0 {
		junction = meet[0]
	}
	{
		// Clear the old path from its leaf up to the junction. The old leaf
		// is the last entry before this writer's (SPEC §4: file order).
		// With no junction (the new leaf is on another root) the walk goes to
		// the old root: still the path's length, never the session's size.
		if _, err := tx.ExecContext(ctx, `WITH RECURSIVE old(seq, parent_id) AS (
				SELECT seq, parent_id FROM entries WHERE sid = ?1 AND seq = ?2 AND seq != ?3 AND active = 1
				UNION
				SELECT e.seq, e.parent_id FROM old CROSS JOIN entries e
					ON e.sid = ?1 AND e.seq = (SELECT min(seq) FROM entries INDEXED BY entries_by_id WHERE sid = ?1 AND entry_id = old.parent_id)
				WHERE e.seq != ?3 AND e.active = 1
			)
			UPDATE entries SET active = 0 WHERE sid = ?1 AND seq IN (SELECT seq FROM old)`, sid, oldSeq, junction); err != nil {
			return fmt.Errorf("active path: %w", err)
		}
	}
	// The same walk again: it stops at the junction, still marked.
	if _, err := tx.ExecContext(ctx, mark, sid, newSeq); err != nil {
		return fmt.Errorf("active path: %w", err)
	}
	return nil
}

// HasEntry reports whether the session holds an entry with id, among the
// entries stored so far (those of earlier reads and the batches added).
func (w *SessionWriter) HasEntry(ctx context.Context, id string) (bool, error) {
	var n int
	if err := w.tx.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM entries INDEXED BY entries_by_id WHERE sid = ? AND entry_id = ? LIMIT 1)`, w.s.SID, id); err != nil {
		return false, fmt.Errorf("index %s: look up entry: %w", w.s.Path, err)
	}
	return n > 0, nil
}

// claudeActive finds a claude session's active leaf (SPEC §3.4): the leaf
// on the highest line among those that are not sidechains, else the leaf
// on the highest line. It walks back from the last entry and stops at the
// first such leaf, which is almost always the last entry itself. It
// returns that leaf's seq, sets the session's ActiveLeaf, and gives the seq
// of the old active leaf (-1 when there was none).
func (w *SessionWriter) claudeActive(ctx context.Context) (newSeq, oldSeq int, err error) {
	const leaf = `SELECT seq, entry_id FROM entries n WHERE n.sid = ?1 AND n.side <= ?2 AND NOT EXISTS
		(SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = ?1 AND c.parent_id = n.entry_id)
		ORDER BY n.seq DESC LIMIT 1`
	var rows []struct {
		Seq int    `db:"seq"`
		ID  string `db:"entry_id"`
	}
	for side := 0; side <= 1 && len(rows) == 0; side++ {
		if err := w.tx.SelectContext(ctx, &rows, leaf, w.s.SID, side); err != nil {
			return 0, 0, err
		}
	}
	newSeq = w.seq - 1 // a session of cycles only has no leaf: the last entry, as for pi
	if len(rows) > 0 {
		newSeq = rows[0].Seq
		w.s.ActiveLeaf = &rows[0].ID
	}
	oldSeq = -1
	if w.oldLeaf != nil {
		var seqs []int
		if err := w.tx.SelectContext(ctx, &seqs, `SELECT seq FROM entries INDEXED BY entries_by_id WHERE sid = ? AND entry_id = ? AND seq < ? ORDER BY seq LIMIT 1`, w.s.SID, *w.oldLeaf, w.base); err != nil {
			return 0, 0, err
		}
		if len(seqs) > 0 {
			oldSeq = seqs[0]
		}
	}
	return newSeq, oldSeq, nil
}

func ptr[T any](v T) *T { return &v }
