package jsonl

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/grove-sessions/grove/errs"
)

// Pending is an append that was issued and may not have committed yet.
type Pending struct {
	ID   string // the entry's id ("" for a header line)
	done chan struct{}
	err  error
}

// Wait blocks until the append has committed or failed, and returns its
// error: nil, an invalid_entry, duplicate_id or missing_parent *errs.Error (the
// store stays usable), or a needs_repair or tainted *errs.Error.
func (p *Pending) Wait() error {
	<-p.done
	return p.err
}

// Done is closed when the append has settled.
func (p *Pending) Done() <-chan struct{} { return p.done }

func settled(id string, err error) *Pending {
	p := &Pending{ID: id, done: make(chan struct{}), err: err}
	close(p.done)
	return p
}

// request is one queued append (line != nil) or read barrier (line == nil).
type request struct {
	line   []byte // the serialized line, without LF, fixed at call time
	entry  Entry  // what the line parsed to at call time (ID, ParentID, Root, ...)
	header bool   // a pi header line: no tree checks
	p      *Pending
}

// queue runs requests one at a time, in the order they were queued, on its
// own goroutine: the FIFO of SPEC §5 and of the chapter's Store.
type queue struct {
	mu      sync.Mutex   // held while a request is validated and queued: call order is queue order
	pending atomic.Int64 // requests queued and not yet settled
	reqs    chan *request
	commit  func(*request) error
	once    sync.Once
	closed  bool
}

func newQueue(commit func(*request) error) *queue {
	// At most 64 serialized lines wait; a 65th call blocks until one is
	// written, which bounds memory when a caller issues appends faster than
	// the disk takes them.
	q := &queue{reqs: make(chan *request, 64), commit: commit}
	go q.run()
	return q
}

func (q *queue) run() {
	for r := range q.reqs {
		if r.line != nil {
			r.p.err = q.commit(r)
		}
		q.pending.Add(-1) // before done: a caller woken by it sees the queue idle
		close(r.p.done)
	}
}

// push queues r; the caller holds q.mu.
func (q *queue) push(r *request) *Pending {
	if q.closed {
		return settled(r.entry.ID, errs.New(errs.CodeIO, "the store is closed"))
	}
	q.pending.Add(1)
	q.reqs <- r
	return r.p
}

// barrier waits until every request queued before it has settled.
func (q *queue) barrier(ctx context.Context) error {
	q.mu.Lock()
	p := q.push(&request{p: &Pending{done: make(chan struct{})}})
	q.mu.Unlock()
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.once.Do(func() {
		q.closed = true
		close(q.reqs)
	})
}

// MemStore is the in-memory store of the session-tree chapter, in the plain
// dialect, with the append contract of SPEC §5: an entry is validated and
// serialized when Append is called; appends commit in call order; the
// duplicate-id and parent checks run at commit time; a failed append fails
// alone; Entries waits for queued appends and returns deep copies.
//
// It is safe for concurrent use. Close stops its goroutine.
type MemStore struct {
	q       *queue
	checker *parser
	mu      sync.Mutex // guards entries and ids
	entries []Entry
	ids     map[string]bool
}

// NewMemStore returns an empty in-memory store.
func NewMemStore() *MemStore {
	s := &MemStore{ids: map[string]bool{}}
	s.checker = newParser(Options{Mode: Strict, KeepRaw: true}, nil)
	s.checker.decided, s.checker.res.Dialect = true, Plain
	s.q = newQueue(s.commit)
	return s
}

// AppendAsync issues an append and returns at once; the entry (any value
// MarshalEntry takes) is validated and serialized before it returns.
func (s *MemStore) AppendAsync(v any) *Pending {
	s.q.mu.Lock()
	defer s.q.mu.Unlock()
	r, err := prepare(s.checker, v, 0)
	if err != nil {
		return settled("", err)
	}
	return s.q.push(r)
}

// Append is AppendAsync followed by Wait.
func (s *MemStore) Append(v any) error { return s.AppendAsync(v).Wait() }

func (s *MemStore) commit(r *request) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkTree(s.ids, r.entry); err != nil {
		return err
	}
	e := r.entry
	e.Line = len(s.entries) + 1
	s.entries = append(s.entries, e)
	s.ids[e.ID] = true
	return nil
}

// Entries waits for every append issued before it to settle, then returns
// deep copies of the committed entries in commit order.
func (s *MemStore) Entries(ctx context.Context) ([]Entry, error) {
	if err := s.q.barrier(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.Clone()
	}
	return out, nil
}

// Close stops the store; later appends fail.
func (s *MemStore) Close() { s.q.close() }

// prepare is the call-time half of an append: serialize v, then read the
// line with the file's dialect rules (checker holds the dialect and version
// as of the appends already queued), so that exactly what will be read back
// is validated. line is the physical line number the append would get.
func prepare(checker *parser, v any, line int) (*request, error) {
	b, err := MarshalEntry(v)
	if err != nil {
		return nil, err
	}
	return check(checker, b, line, true)
}

// check reads b, one serialized line, with the file's dialect rules (see
// prepare). strict is the writer's strictness for new entries: no warning
// (bad_timestamp, ...) and, in a pi file, user, assistant and toolResult
// messages of the plain dialect's shapes. Without it (a committed line of
// another file, copied), what a reader accepts is accepted.
//
// A refused line leaves checker as it was: the next append is read as if
// this one had never been made (its line number, a messages log's parent,
// a new file's dialect and header).
func check(checker *parser, b []byte, line int, strict bool) (r *request, err error) {
	saved, savedRes := *checker, *checker.res
	defer func() {
		if err != nil {
			*checker = saved
			*checker.res = savedRes
		}
	}()
	if checker.version == 1 {
		return nil, errs.New(errs.CodeInvalidEntry, "pi version 1 files are not appended to: their ids come from line numbers (pi migrates them to version 3 first)")
	}
	o, why := parseObject(b)
	if why != "" {
		return nil, errs.New(errs.CodeInvalidEntry, why)
	}
	if typ, _ := optString(o, "type", ""); typ == "title" {
		return nil, errs.New(errs.CodeInvalidEntry, "type: \"title\" lines belong to oh-my-pi; grove does not write them")
	}
	var got *Entry
	checker.fn = func(e Entry) error { got = &e; return nil }
	warnings := len(checker.res.Warnings)
	hadHeader := checker.res.Header != nil
	err = checker.line(Line{Num: line, Bytes: b, Committed: true})
	checker.fn = nil
	if err != nil {
		msg := err.Error()
		if e, ok := errs.As(err); ok {
			msg = e.Message
		}
		return nil, errs.Wrap(errs.CodeInvalidEntry, err, msg)
	}
	if d := checker.res.Dialect; !RulesOf(d).Writable() {
		return nil, wrongDialect("", d)
	}
	if len(checker.res.Warnings) > warnings {
		w := checker.res.Warnings[warnings]
		checker.res.Warnings = checker.res.Warnings[:warnings]
		if strict {
			return nil, errs.New(errs.CodeInvalidEntry, w.Message+" ("+string(w.Code)+")")
		}
	}
	// Writing is stricter than reading: in a pi file, the messages pi itself
	// renders (user, assistant, toolResult) must have the shapes of the
	// plain dialect's messages (SPEC §3.1), which are pi's own.
	if strict && got != nil && checker.res.Dialect == Pi && got.Type == "message" {
		switch got.Role {
		case "user", "assistant", "toolResult":
			if _, err := checkPlainMessage(o["message"]); err != nil {
				return nil, errs.New(errs.CodeInvalidEntry, err.Error()).WithID(err.field)
			}
		}
	}
	if strict && got != nil && checker.res.Dialect == Messages {
		if err := checkChatMessage(o); err != nil {
			return nil, errs.New(errs.CodeInvalidEntry, err.Error())
		}
	}
	r = &request{line: b}
	switch {
	case got != nil:
		r.entry = *got
		r.entry.Raw = b
		r.entry.Length = len(b)
	case !hadHeader && checker.res.Header != nil:
		if checker.res.Header.Version < 2 {
			return nil, errs.New(errs.CodeInvalidEntry, "version: a new pi file needs a header of version 2 or later (version 1 has no entry ids)")
		}
		r.header = true
	default:
		return nil, errs.New(errs.CodeInvalidEntry, "not an entry")
	}
	r.p = &Pending{ID: r.entry.ID, done: make(chan struct{})}
	return r, nil
}

// checkTree applies the commit-time tree rules of SPEC §5 to e: its id is
// new and its parent, if any, is already committed.
func checkTree(ids map[string]bool, e Entry) error {
	if ids[e.ID] {
		return errs.New(errs.CodeDuplicateID, "entry id "+quote(e.ID)+" is already in the session").WithID(e.ID)
	}
	if !e.Root && !ids[e.ParentID] {
		return errs.New(errs.CodeMissingParent, "entry "+quote(e.ID)+" names parent "+quote(e.ParentID)+", which is not committed").WithID(e.ID).WithParent(e.ParentID)
	}
	return nil
}

// wrongDialect is the error for an append to a file grove does not write:
// Claude Code's and Codex's belong to their agents (SPEC §5).
func wrongDialect(path string, d Dialect) *errs.Error {
	return errs.New(errs.CodeWrongDialect, "this is a "+string(d)+" session file; grove never writes another agent's files").In(path).WithHint("grove appends to pi, plain and messages files only; `grove export --format md|html` makes a copy to read")
}

// checkChatMessage is the writer's check of a new messages-log line (SPEC
// §3.6, the chapter's saveMessages): a role of user or assistant, content a
// string or a list of blocks, each an object with a string type, among them
// text, tool_use and tool_result with their fields.
func checkChatMessage(o object) *schemaError {
	role, _ := optString(o, "role", "")
	if role != "user" && role != "assistant" {
		return fieldErr("role", "is %q, want \"user\" or \"assistant\"", role)
	}
	c := o["content"]
	if jsonKind(c) == 's' {
		return nil
	}
	blocks, err := decodeArray(c, "content")
	if err != nil {
		return err
	}
	for i, b := range blocks {
		path := "content[" + strconv.Itoa(i) + "]"
		bo, err := decodeObject(b, path)
		if err != nil {
			return err
		}
		typ, err := wantString(bo, "type", path)
		if err != nil {
			return err
		}
		switch typ {
		case "text":
			_, err = wantString(bo, "text", path)
		case "tool_use":
			if _, err = wantString(bo, "id", path); err == nil {
				if _, err = wantString(bo, "name", path); err == nil {
					_, err = want(bo, "input", path, 'o')
				}
			}
		case "tool_result":
			_, err = wantString(bo, "tool_use_id", path)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
