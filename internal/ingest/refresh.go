package ingest

import (
	"context"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// Change is how a session file differs from what the index holds, and so
// how much of it a refresh reads (SPEC §2, §6; README "Keeping the index
// current").
type Change int

const (
	// Unchanged: same size, mtime, device and inode. Costs one stat.
	Unchanged Change = iota
	// Appended: the same file (device, inode), of another size but no
	// shorter than its committed length, whose first and last committed
	// bytes are still those the index saw. Read only from its committed
	// length on, so a tail that has since become committed is picked up.
	Appended
	// Whole: new, rewritten (also in place at the same size), truncated,
	// replaced, or not resumable (a pi version 1 file, a file whose dialect
	// no line has decided yet). Read whole.
	Whole
)

// fingerprintWindow is how many committed bytes, at the start and at the
// end of the committed prefix, the index keeps a CRC-32 of.
const fingerprintWindow = 4096

// fingerprints returns the CRC-32s of the first and of the last
// min(fingerprintWindow, committed) bytes of r, and the bytes it read.
func fingerprints(r io.ReaderAt, committed int64) (head, tail uint32, n int64, err error) {
	w := min(committed, fingerprintWindow)
	buf := make([]byte, w)
	if _, err := r.ReadAt(buf, 0); err != nil && err != io.EOF {
		return 0, 0, 0, err
	}
	head = crc32.ChecksumIEEE(buf)
	if committed <= w {
		return head, head, w, nil
	}
	tail, err = tailFingerprint(r, committed)
	return head, tail, 2 * w, err
}

// tailFingerprint is the tail half of fingerprints.
func tailFingerprint(r io.ReaderAt, committed int64) (uint32, error) {
	w := min(committed, fingerprintWindow)
	buf := make([]byte, w)
	if _, err := r.ReadAt(buf, committed-w); err != nil && err != io.EOF {
		return 0, err
	}
	return crc32.ChecksumIEEE(buf), nil
}

// countingFile counts the bytes read through it: a session file, or the
// committed bytes of one that the index stored (PostgreSQL rebuild).
type countingFile struct {
	f    io.ReaderAt
	path string // the session file's path
	n    int64
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.f.ReadAt(p, off)
	c.n += int64(k)
	return k, err
}

// FileResult is what refreshing one file did.
type FileResult struct {
	Change    Change
	Entries   int         // entries stored by this refresh (all of them when read whole)
	State     jsonl.State // the session's state after it
	BytesRead int64       // bytes of the session file read
}

// batchEntries and batchText bound what a refresh holds in memory before
// writing rows: entries, and bytes of search text.
const (
	batchEntries = 4096
	batchText    = 8 << 20
)

// IndexFile reads one session file (absolute path) into the index: not at
// all when the index holds it with the same size, mtime, device and inode
// (unless force), from its committed length when it grew by appending
// (unless force), else whole. It returns the number of entries stored, the
// session's state and whether the file was read. Errors: io_error for a
// file that cannot be read, others when the index fails.
func (ix *Indexer) IndexFile(ctx context.Context, path string, force bool) (int, jsonl.State, bool, error) {
	old, err := ix.db.SessionByPath(ctx, path)
	if err != nil {
		return 0, "", false, err
	}
	st, err := Stat(path)
	if err != nil {
		return 0, "", false, errs.Wrap(errs.CodeIO, err, "cannot read session file: "+errs.PathReason(err)).In(path)
	}
	b, err := ix.db.BeginBatch(ctx)
	if err != nil {
		return 0, "", false, err
	}
	defer b.Rollback()
	r, err := ix.refreshFile(ctx, b, path, st, old, force)
	if err == nil {
		err = b.Commit()
	}
	return r.Entries, r.State, r.Change != Unchanged, err
}

// refreshFile is IndexFile for a file already stat'ed as st, with old the
// index's row for it (nil when it has none), writing into batch b. On an
// error the file's rows are rolled back and b goes on.
func (ix *Indexer) refreshFile(ctx context.Context, b *index.Batch, path string, st FileStat, old *index.Session, force bool) (FileResult, error) {
	if !st.Regular {
		return FileResult{}, errs.New(errs.CodeIO, "not a regular file; session files are plain files").In(path)
	}
	if old != nil && old.FirstMessage == nil {
		force = true // indexed before schema 5: what the list shows needs the whole file (migration 5)
	}
	var unchanged FileResult
	if old != nil {
		unchanged = FileResult{Change: Unchanged, Entries: old.Entries, State: jsonl.State(old.State)}
	}
	if old != nil && !force && SameStat(old, st) && !racy(old) {
		return unchanged, nil
	}
	f, size, err := jsonl.OpenFile(path)
	if err != nil {
		return FileResult{}, err
	}
	defer f.Close()
	cf := &countingFile{f: f, path: path}
	res := FileResult{Change: Whole}
	if old != nil && !force && SameStat(old, st) {
		// Racily clean: trust the stat only if the bytes agree too. Once
		// the file is old enough, say so, so that the next refresh costs a
		// stat again.
		head, tail, n, err := fingerprints(cf, old.CommittedLen)
		if err == nil && head == old.HeadCRC && tail == old.TailCRC {
			unchanged.BytesRead = n
			if now := time.Now().UnixMilli(); now-st.MtimeNs/1e6 >= index.RacyWindowMs {
				if err := b.Settle(ctx, old.SID, index.StatKey(st.Size, st.MtimeNs, st.Dev, st.Ino), now); err != nil {
					return unchanged, err
				}
			}
			return unchanged, nil
		}
	}
	// Grown (or its tail cut back, as grove repair does): read on from the
	// committed length, when its first bytes and its old last bytes are
	// still there.
	if !force && appendable(old, st, size) {
		head, tail, _, err := fingerprints(cf, old.CommittedLen)
		if err != nil {
			return FileResult{BytesRead: cf.n}, errs.Wrap(errs.CodeIO, err, "read session file: "+errs.PathReason(err)).In(path)
		}
		if head == old.HeadCRC && tail == old.TailCRC {
			res.Change = Appended
		}
	}
	if res.Change == Appended {
		err = ix.appendFile(ctx, b, cf, size, st, old, &res)
	} else {
		err = ix.readWhole(ctx, b, cf, size, st, &res)
	}
	res.BytesRead = cf.n
	return res, err
}

// sink is what a sessionReader writes one read of a session file into:
// an index.SessionWriter, or a recorder that holds the read for a writer
// on another goroutine (prefetch.go).
type sink interface {
	Session() *index.Session
	AddEntries(ctx context.Context, entries []index.Entry) error
	AddDiagnostics(ctx context.Context, diags []index.Diagnostic) error
	SetLabel(target, label string)
	HasEntry(ctx context.Context, id string) (bool, error)
	HasCopy(ctx context.Context, crc uint32) (bool, error)
	Commit(ctx context.Context) error
	Rollback()
}

// sessionReader streams one read of a session file into a sink:
// entries in batches, diagnostics and facts as they come.
type sessionReader struct {
	w         sink
	keep      bool // the sink keeps what it is given: flush does not reuse the buffers
	rows      []index.Entry
	arena     []byte // the batch's search text; rows[i].Text points into it
	diags     []index.Diagnostic
	stored    int
	appending bool // reading on from the committed length of an earlier read
	// activity is the latest user or assistant message time read (SPEC
	// §3.2), nil if none; first the first user message's text, nil until
	// one is read (kept from the earlier read when appending).
	activity *int64
	first    *string
	// rules are the agent's of the file's dialect, set when the reader
	// decides it; facts are what the entries read say of the session
	// (its name, workspace candidates).
	rules agent.Agent
	facts agent.Facts
	// kinds are the kind facts of the entries read, in file order, for a
	// file whose dialect has kinds (jsonl.HasKinds, SPEC §4.2).
	kinds []jsonl.KindFacts
	// copies counts the entries read of each copy CRC (jsonl.CopyAt): the
	// k-th item of one Codex payload gets its own copy key.
	copies map[uint32]int
}

// copiesBefore is how many entries of copy CRC c the session holds before
// the one being read, and counts that one: those read so far, and in an
// append those of the earlier reads, found in the index.
func (r *sessionReader) copiesBefore(ctx context.Context, c uint32) (int, error) {
	if r.copies == nil {
		r.copies = map[uint32]int{}
	}
	k, seen := r.copies[c]
	if !seen && r.appending {
		for {
			ok, err := r.w.HasCopy(ctx, jsonl.CopyAt(c, k))
			if err != nil {
				return 0, err
			}
			if !ok {
				break
			}
			k++
		}
	}
	r.copies[c] = k + 1
	return k, nil
}

// decided takes the file's dialect from the reader (jsonl.Options.Decided).
func (r *sessionReader) decided(d jsonl.Dialect) {
	r.rules = agent.Of(d)
	r.w.Session().Dialect = string(d)
}

func (r *sessionReader) entry(ctx context.Context, e jsonl.Entry) error {
	// A full batch is written when the next entry comes (or at finish), not
	// as its last entry is read: by then the reader has let that entry's
	// line go, so a 30 MB text line is not held beside its search text
	// while SQLite takes the text (SPEC §2.8).
	if len(r.rows) >= batchEntries || len(r.arena) >= batchText {
		if err := r.flush(ctx); err != nil {
			return err
		}
	}
	row := index.Entry{EntryID: e.ID, Type: e.Type, Line: e.Line, Offset: e.Offset, Length: e.Length, CRC: crc32.ChecksumIEEE(e.Raw)}
	if !e.Root {
		p := e.ParentID
		row.ParentID = &p
	}
	if e.Role != "" {
		role := e.Role
		row.Role = &role
	}
	if e.HasTime {
		t := e.Timestamp
		row.TsMs = &t
	}
	if e.Type == "compaction" && e.FirstKept != "" {
		k := e.FirstKept
		row.FirstKept = &k
	}
	row.Side = e.Sidechain
	if c := r.rules.CopyCRC(&e); c != 0 {
		k, err := r.copiesBefore(ctx, c)
		if err != nil {
			return err
		}
		row.CopyCRC = jsonl.CopyAt(c, k)
	}
	r.facts.Add(&e)
	if jsonl.HasKinds(r.rules.Dialect()) {
		r.kinds = append(r.kinds, jsonl.FactsOf(r.rules.Dialect(), &e))
	}
	start := len(r.arena)
	r.arena = r.rules.AppendSearchText(r.arena, &e)
	if len(r.arena) > start {
		row.Text = r.arena[start:len(r.arena):len(r.arena)]
	}
	if (e.Role == "user" || e.Role == "assistant") && r.rules.HasMessage(e.Type, e.Role) {
		r.message(e)
	}
	if e.Type == "label" && e.TargetID != "" {
		r.w.SetLabel(e.TargetID, e.Label)
	}
	r.rows = append(r.rows, row)
	return nil
}

// message notes what pi's session list takes from a user or assistant
// message entry: its activity time and, for the first user message with
// text, that text (SPEC §3.2, §8).
func (r *sessionReader) message(e jsonl.Entry) {
	t, ok := r.rules.Activity(&e)
	if ok && t > 0 && (r.activity == nil || t > *r.activity) {
		r.activity = &t
	}
	if r.first == nil && e.Role == "user" {
		if t := r.rules.UserText(&e); t != "" {
			f := FirstMessage(t)
			r.first = &f
		}
	}
}

func (r *sessionReader) diagnostic(e *errs.Error) {
	sev := "warning"
	if e.Code == errs.CodeBadLine {
		sev = "error"
	}
	r.diags = append(r.diags, index.Diagnostic{Severity: sev, Code: string(e.Code), Line: e.Line, Offset: e.Offset, Message: e.Message})
}

// flush writes the batch. Diagnostics go with it, so that memory does not
// grow with bad lines either.
func (r *sessionReader) flush(ctx context.Context) error {
	if err := r.w.AddEntries(ctx, r.rows); err != nil {
		return err
	}
	r.stored += len(r.rows)
	if err := r.w.AddDiagnostics(ctx, r.diags); err != nil {
		return err
	}
	if r.keep {
		r.rows, r.arena, r.diags = nil, nil, nil
		return nil
	}
	r.rows, r.arena, r.diags = r.rows[:0], r.arena[:0], r.diags[:0]
	if cap(r.arena) > 2*batchText {
		r.arena = nil // grown for one long text: not kept for the rest of the file
	}
	return nil
}

// finish writes what is left and the file facts, and commits. The head
// fingerprint is read again only when it can have changed.
func (r *sessionReader) finish(ctx context.Context, f io.ReaderAt, st FileStat, read *jsonl.Result) error {
	if err := r.flush(ctx); err != nil {
		return err
	}
	s := r.w.Session()
	if r.facts.HasName {
		s.Name = r.facts.Name // pi's getSessionName: the last one wins, a blank one clears
	}
	if r.activity != nil && (s.ActivityMs == nil || *r.activity > *s.ActivityMs) {
		s.ActivityMs = r.activity
	}
	switch {
	case r.first != nil:
		s.FirstMessage = r.first
	case s.FirstMessage == nil:
		s.FirstMessage = new(string) // read, and no user message has text
	}
	a := agent.Of(jsonl.Dialect(s.Dialect))
	s.Workspace = a.Workspace(s.Workspace, s.Path, read.Header, &r.facts)
	if err := r.metaFacts(ctx, a, f, read); err != nil {
		return err
	}
	if err := r.kindFacts(ctx, f, read); err != nil {
		return err
	}
	oldCommitted := s.CommittedLen
	s.Lines, s.CommittedLen, s.Resumable = read.Lines, read.Committed, read.Resumable
	s.FileSize, s.FileMtimeNs, s.FileDev, s.FileIno = st.Size, st.MtimeNs, st.Dev, st.Ino
	var err error
	if !r.appending || oldCommitted < fingerprintWindow {
		s.HeadCRC, s.TailCRC, _, err = fingerprints(f, read.Committed)
	} else {
		s.TailCRC, err = tailFingerprint(f, read.Committed)
	}
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "read session file: "+errs.PathReason(err)).In(s.Path)
	}
	return r.w.Commit(ctx)
}

// kindFacts hands the kind facts of every entry of the session to the
// writer (index.Session.KindFacts), for a file whose dialect has kinds: a
// child's kind depends on what lies below it and beside it (SPEC §4.2),
// so after an append the committed file is read whole again for them.
func (r *sessionReader) kindFacts(ctx context.Context, f io.ReaderAt, read *jsonl.Result) error {
	s := r.w.Session()
	d := jsonl.Dialect(s.Dialect)
	if !jsonl.HasKinds(d) {
		return nil
	}
	if !r.appending {
		s.KindFacts, r.kinds = r.kinds, nil
		if s.KindFacts == nil {
			s.KindFacts = []jsonl.KindFacts{}
		}
		return nil
	}
	facts := []jsonl.KindFacts{}
	_, err := jsonl.ReadFrom(f, read.Committed, jsonl.Resume{}, jsonl.Options{Path: s.Path, Mode: jsonl.Salvage, Context: ctx, Where: d},
		func(e jsonl.Entry) error {
			facts = append(facts, jsonl.FactsOf(d, &e))
			return nil
		})
	if err != nil {
		return err
	}
	s.KindFacts = facts
	return nil
}

// metaFacts sets the session's name and parent session from what the
// lines that are no entries say, by the rules of its agent a (MetaFacts:
// Claude Code's titles, summaries and sessionId, SPEC §3.4). After an
// append, the agent may read the whole committed file again.
func (r *sessionReader) metaFacts(ctx context.Context, a agent.Agent, f io.ReaderAt, read *jsonl.Result) error {
	s := r.w.Session()
	id := agent.Identity{Name: s.Name, ParentSession: s.ParentSession}
	var reread func() (*jsonl.Result, error)
	if r.appending {
		reread = func() (*jsonl.Result, error) {
			return jsonl.ReadFrom(f, read.Committed, jsonl.Resume{}, jsonl.Options{Path: s.Path, Mode: jsonl.Salvage, Context: ctx}, nil)
		}
	}
	err := a.MetaFacts(s.Path, &id, read, func(x string) (bool, error) { return r.w.HasEntry(ctx, x) }, reread)
	if err != nil {
		return err
	}
	s.Name, s.ParentSession = id.Name, id.ParentSession
	return nil
}

// readWhole reads the file from byte 0 into a new SessionWriter; what the
// header says is stored with the rest at Commit.
func (ix *Indexer) readWhole(ctx context.Context, b *index.Batch, f *countingFile, size int64, st FileStat, out *FileResult) error {
	return readWholeInto(ctx, func(s *index.Session) (sink, error) { return b.Replace(ctx, s) }, false, f, size, st, out)
}

// readWholeInto reads the file from byte 0 into the sink begin makes for
// its session; keep is the sink's (sessionReader.keep).
func readWholeInto(ctx context.Context, begin func(*index.Session) (sink, error), keep bool, f *countingFile, size int64, st FileStat, out *FileResult) error {
	path := f.path
	undecided := agent.Default // until the reader decides the dialect (SPEC §3)
	s := &index.Session{Path: path, SessionID: undecided.SessionID(path, nil), Dialect: string(undecided.Dialect())}
	w, err := begin(s)
	if err != nil {
		return err
	}
	defer w.Rollback()
	s = w.Session()
	r := &sessionReader{w: w, keep: keep, rules: undecided}
	read, err := jsonl.ReadFrom(f, size, jsonl.Resume{}, jsonl.Options{Path: path, Mode: jsonl.Salvage, Context: ctx, Diagnostic: r.diagnostic,
		Where: dialectAt(path), Decided: r.decided},
		func(e jsonl.Entry) error { return r.entry(ctx, e) })
	if err != nil {
		return err
	}
	s.SessionID, s.Dialect = agent.Of(read.Dialect).SessionID(path, read.Header), string(read.Dialect)
	if h := read.Header; h != nil {
		s.Version, s.ParentSession, s.Workspace = h.Version, h.ParentSession, h.Cwd
		if h.Timestamp != 0 {
			t := h.Timestamp
			s.HeaderMs = &t
		}
	}
	if err := r.finish(ctx, f, st, read); err != nil {
		return err
	}
	out.Entries, out.State = r.stored, jsonl.State(s.State)
	return nil
}

// appendFile reads the file from old's committed length on.
func (ix *Indexer) appendFile(ctx context.Context, b *index.Batch, f *countingFile, size int64, st FileStat, old *index.Session, out *FileResult) error {
	w, err := b.Append(ctx, old.SID)
	if err != nil {
		return err
	}
	defer w.Rollback()
	if err := w.DropTail(ctx); err != nil {
		return err
	}
	rules := agent.Of(jsonl.Dialect(old.Dialect))
	r := &sessionReader{w: w, appending: true, rules: rules}
	if fm := w.Session().FirstMessage; fm != nil && *fm != "" {
		r.first = fm // an append never changes the first message
	}
	from := jsonl.Resume{Offset: old.CommittedLen, Lines: old.Lines, Dialect: jsonl.Dialect(old.Dialect), Version: old.Version}
	if rules.Traits().Chain && old.ActiveLeaf != nil {
		from.Prev = *old.ActiveLeaf // one chain: its active leaf is its last entry
	}
	if old.HeaderMs != nil {
		from.HeaderMs = *old.HeaderMs
	}
	if starts := rules.Traits().TurnStarts; starts != nil { // an event appended to the last turn is paired with its lines
		if off, ok, err := w.LastOffsetOf(ctx, starts); err != nil {
			return err
		} else if ok {
			from.Turn = off
		}
	}
	read, err := jsonl.ReadFrom(f, size, from, jsonl.Options{Path: old.Path, Mode: jsonl.Salvage, Context: ctx, Diagnostic: r.diagnostic},
		func(e jsonl.Entry) error { return r.entry(ctx, e) })
	if err != nil {
		return err
	}
	if err := r.finish(ctx, f, st, read); err != nil {
		return err
	}
	out.Entries, out.State = r.stored, jsonl.State(w.Session().State)
	if read.Lines == old.Lines && st.Size == old.FileSize {
		out.Change = Unchanged // a racily clean file (see racy) that was clean
	}
	return nil
}

// dialectAt is the dialect of a file with no parseable line from where it
// is (SPEC §3): the dialect of the first agent that claims it (Claude
// Code: under $CLAUDE_CONFIG_DIR/projects), else jsonl.DialectAt's rules.
func dialectAt(path string) jsonl.Dialect {
	for _, a := range agent.All {
		if a.Claims(path, os.Getenv) {
			return a.Dialect()
		}
	}
	return jsonl.DialectAt(path)
}
