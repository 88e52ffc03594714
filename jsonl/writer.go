package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/flock"
)

// File is the I/O boundary of a Writer: the session file opened for
// appending. *os.File is one; tests wrap it to fail a write before any
// byte, after part of a line, or with ENOSPC.
type File interface {
	io.Writer
	Sync() error
	Close() error
	Stat() (os.FileInfo, error)
}

// WriterOptions configure OpenWriter.
type WriterOptions struct {
	// Fsync makes every append wait for fsync(2) after its write. Without it
	// an append returns once the operating system accepted the write (the
	// chapter's contract): a process crash loses nothing that returned, but
	// a power cut may lose the last appends, or leave a torn last line,
	// which the next open reports as an unterminated tail (needs-repair).
	// With it, an append that returned survives a power cut too, at the
	// cost of one disk flush per append (see BENCHMARKS.md).
	Fsync bool
	// WrapFile, when set, wraps the opened file: the fault-injection hook.
	WrapFile func(File) File
}

// WriterState is a writer's state (SPEC §5): Ready, NeedsRepair or Tainted.
type WriterState string

const (
	Ready       WriterState = "ready"        // appends go to the file
	NeedsRepair WriterState = "needs-repair" // the file had an unterminated tail: appends are refused
	Tainted     WriterState = "tainted"      // a write failed: nothing more is written through this writer
)

// Writer appends entries to one session file (SPEC §5): validated and
// serialized at call time, committed in call order by one goroutine, with
// the duplicate-id and parent checks at commit time. After every successful
// append the old file is a byte prefix of the new one. One Writer per file
// across processes: OpenWriter takes an exclusive advisory lock (package
// internal/flock: flock(2) on Unix, a byte past the end on Windows),
// which readers never take and so never wait for.
//
// It is safe for concurrent use.
type Writer struct {
	path string
	opts WriterOptions
	q    *queue

	checker *parser // call-time dialect state; guarded by q.mu
	// next is the physical line number the next issued line will have:
	// one more than the lines committed and queued (SPEC §5: a messages
	// log's L<n> counts every append issued before it). Guarded by q.mu.
	next int

	mu       sync.Mutex // guards everything below (the commit side)
	f        File
	lock     *os.File
	state    WriterState
	taint    *errs.Error     // the first write error, returned to every later call
	repair   *errs.Error     // why the writer needs repair
	size     int64           // bytes in the file
	lines    int             // physical lines committed
	prefixLF bool            // the file ends in a blank tail: terminate it before the next line
	ids      map[string]bool // every committed entry id: the only per-entry memory a writer keeps
	lastID   string          // the last committed entry's id: where a messages log's next line hangs
	readOnly *errs.Error     // why no append can ever succeed (a pi version 1 file), or nil
}

// OpenWriter opens the session file at path for appending, creating it
// (mode 0600) if it does not exist, and takes the writer lock. It reads the
// file strictly (SPEC §2.6) and replays the tree rules: every id unique and
// every parent on an earlier line.
//
// Errors (*errs.Error): locked when another writer holds the file; bad_line for
// the first bad line; duplicate_id or missing_parent naming the line that
// breaks the tree rules; io_error. A file with an unterminated tail opens
// in the needs-repair state, with its committed prefix readable.
func OpenWriter(path string, opts WriterOptions) (*Writer, error) {
	_, statErr := os.Lstat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "cannot open session file for appending: "+osReason(err)).In(path)
	}
	if err := lockWriter(f, path, "appending now would interleave lines"); err != nil {
		f.Close()
		return nil, err
	}
	if created && opts.Fsync {
		// The new name must survive a power cut too.
		if err := syncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, errs.Wrap(errs.CodeIO, err, "cannot flush the new file's directory: "+osReason(err)).In(path)
		}
	}
	w := &Writer{path: path, opts: opts, lock: f, state: Ready, ids: map[string]bool{}}
	if err := w.load(f); err != nil {
		f.Close()
		return nil, err
	}
	var file File = f
	if opts.WrapFile != nil {
		file = opts.WrapFile(f)
	}
	w.f = file
	w.q = newQueue(w.commit)
	return w, nil
}

// load reads the file as it is on disk and replays the tree rules.
func (w *Writer) load(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "stat session file: "+osReason(err)).In(w.path)
	}
	if !fi.Mode().IsRegular() {
		return errs.New(errs.CodeIO, NotRegular(fi.Mode())).In(w.path)
	}
	p := newParser(Options{Path: w.path, Mode: Strict}, func(e Entry) error {
		if w.ids[e.ID] {
			return errs.New(errs.CodeDuplicateID, "entry id "+quote(e.ID)+" was already used on an earlier line; the file cannot be appended to").In(w.path).At(e.Line, e.Offset).WithID(e.ID)
		}
		if !e.Root && !w.ids[e.ParentID] {
			return errs.New(errs.CodeMissingParent, "entry "+quote(e.ID)+" names parent "+quote(e.ParentID)+", which is not on an earlier line; the file cannot be appended to").In(w.path).At(e.Line, e.Offset).WithID(e.ID).WithParent(e.ParentID)
		}
		w.ids[e.ID] = true
		return nil
	})
	res, err := p.runFile(f, 0, fi.Size())
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) && e.Code == errs.CodeBadLine && e.Hint == "" {
			// A writer reads strictly (SPEC §2.6): the next entry's parent
			// and id rules cannot be checked past a line it cannot read.
			e.Message += "; appending is refused: a writer takes only files whose every committed line is good"
			e.Hint = "`grove recover " + w.path + "` lists the bad lines (a crash and a restart fuse two lines into one); grove never rewrites committed lines, so append to a new file"
		}
		return err
	}
	w.checker = p
	p.opts.Path = ""
	w.size, w.lines, w.lastID = fi.Size(), res.Lines, res.Last
	for _, warn := range res.Warnings {
		if warn.Code == errs.CodeUnterminatedTail {
			w.state, w.repair = NeedsRepair, errs.Wrap(errs.CodeNeedsRepair, warn, "the file ends in an unterminated tail (a torn last append); appending now would fuse a new line onto it").In(w.path).At(warn.Line, warn.Offset).WithHint("`grove repair "+w.path+"` truncates it to the committed prefix, keeping a backup")
		}
	}
	w.prefixLF = w.state == Ready && fi.Size() > res.Committed
	if !RulesOf(res.Dialect).Writable() {
		w.readOnly = wrongDialect(w.path, res.Dialect)
	}
	if res.Header != nil && res.Header.Version == 1 && res.Dialect == Pi {
		w.readOnly = errs.New(errs.CodeInvalidEntry, "pi version 1 files are not appended to: their entry ids come from line numbers").In(w.path).At(res.Header.Line, res.Header.Offset).WithHint("pi migrates a version 1 file to version 3 when it opens it; append after that")
	}
	return nil
}

// Err returns the error every append gets now without I/O: needs_repair,
// tainted, or invalid_entry for a file no append can go to (pi version 1);
// nil when the writer is ready.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refusal()
}

// State returns the writer's state.
func (w *Writer) State() WriterState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state
}

// AppendAsync issues an append and returns at once: v (any value
// MarshalEntry takes, or JSON text as json.RawMessage or []byte) is
// validated against the file's dialect and serialized into memory the
// writer owns before it returns, so later changes to v, or to the bytes of
// JSON text, change nothing (SPEC §5). A file that does not exist yet takes
// the dialect of its first line. In a messages log the entry's id is
// L<n>, n the physical line it will have: one more than every line
// committed or queued before it. Wait on the result for the outcome.
func (w *Writer) AppendAsync(v any) *Pending {
	return w.issue(func(line int) (*request, error) { return prepare(w.checker, v, line) })
}

// issue validates and queues one append: prep reads it with w.checker as
// physical line number line; the caller of issue holds nothing.
func (w *Writer) issue(prep func(line int) (*request, error)) *Pending {
	w.q.mu.Lock()
	defer w.q.mu.Unlock()
	// Idle first, then the size: every request queued before settles
	// after its commit has set w.size, and none can be queued meanwhile
	// (q.mu is held), so an idle queue's size is final. Read the other
	// way round, the queue could commit every earlier line between the
	// two reads and an issued line would see an "empty" file.
	idle := w.q.pending.Load() == 0
	if issueHook != nil {
		issueHook(w)
	}
	w.mu.Lock()
	refused := w.refusal()
	empty := w.size == 0
	next, last := w.lines+1, w.lastID
	if w.prefixLF {
		next++ // the blank tail becomes a line of its own first
	}
	w.mu.Unlock()
	if refused != nil {
		return settled("", refused)
	}
	if idle {
		// Nothing is queued: go on from what is committed, so that an
		// append that failed at commit frees its line (SPEC §5).
		w.next = next
		if w.checker.res.Dialect == Messages {
			w.checker.prevID = last
		}
	}
	// An empty file's dialect is decided by its first line that commits:
	// when nothing is committed or queued, forget what a refused or failed
	// first append decided.
	if idle && empty {
		w.checker = newParser(Options{Mode: Strict, KeepRaw: true}, nil)
	}
	r, err := prep(w.next)
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			e.Path = w.path
		}
		return settled("", err)
	}
	w.next++
	return w.q.push(r)
}

// issueHook, when set (tests only), runs in issue between reading whether
// the queue is idle and reading the file's size: the window in which the
// queue may commit every earlier line.
var issueHook func(w *Writer)

// Append is AppendAsync followed by Wait.
func (w *Writer) Append(v any) error { return w.AppendAsync(v).Wait() }

// CopyAsync issues the append of line, a committed line of another session
// file (without its LF), byte for byte: a fork copying history (SPEC §5).
// The line is read as a reader reads it, so a line the file's dialect
// calls bad is refused (invalid_entry), and the tree rules hold at commit
// time as for AppendAsync; but the writer's strictness for new entries
// does not apply: integers beyond ±(2^53−1), escaped lone surrogates,
// whitespace between tokens, warnings such as bad_timestamp and messages
// of shapes grove would not write are all copied as they are. Wait on the
// result for the outcome.
func (w *Writer) CopyAsync(line []byte) *Pending {
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		return settled("", errs.New(errs.CodeInvalidEntry, fmt.Sprintf("a copied line holds a line feed at byte column %d; it is more than one line", i+1)).In(w.path))
	}
	b := append([]byte(nil), line...) // the caller may change line after the call
	return w.issue(func(n int) (*request, error) { return check(w.checker, b, n, false) })
}

// refusal is the error every append gets without I/O in the current state.
func (w *Writer) refusal() error {
	if w.readOnly != nil {
		return w.readOnly
	}
	switch w.state {
	case Tainted:
		return w.taint
	case NeedsRepair:
		return w.repair
	}
	return nil
}

// commit is the queue's half of an append: state, tree rules, one write.
// Only the queue's goroutine calls it, so only it writes the file; w.mu is
// not held during the write, so that callers issuing appends never wait
// for I/O.
func (w *Writer) commit(r *request) error {
	w.mu.Lock()
	if err := w.refusal(); err != nil {
		w.mu.Unlock()
		return err
	}
	if !r.header {
		if err := checkTree(w.ids, r.entry); err != nil {
			w.mu.Unlock()
			err.(*errs.Error).Path = w.path
			return err
		}
	}
	prefixLF, size := w.prefixLF, w.size
	w.mu.Unlock()

	// Another process that ignores the lock (an agent writing the file
	// itself) may have appended since: writing now could fuse our line onto
	// its partial one (case 02). Refuse, and stop this writer.
	if fi, err := w.f.Stat(); err == nil && fi.Size() != size {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.state = Tainted
		w.taint = errs.New(errs.CodeTainted, fmt.Sprintf("the file is %d bytes, not the %d this writer wrote: another process wrote to it without the lock, so nothing more is written through this writer", fi.Size(), size)).In(w.path).At(0, size).WithHint("open the file again once the other writer is done")
		return w.taint
	}

	buf := make([]byte, 0, len(r.line)+2)
	if prefixLF {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, r.line...), '\n')
	n, err := w.f.Write(buf)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	if err == nil && w.opts.Fsync {
		err = w.f.Sync()
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.state = Tainted
		if n > 0 && n < len(buf) && cutBack(w.f, size, int64(n)) {
			w.taint = errs.Wrap(errs.CodeTainted, err, fmt.Sprintf("an append failed (%v) after %d of %d bytes; the partial line was cut off (the file is its %d committed bytes again), and this writer writes nothing more", err, n, len(buf), size)).In(w.path).At(0, size).WithHint("open the file again")
			return w.taint
		}
		w.taint = errs.Wrap(errs.CodeTainted, err, fmt.Sprintf("an append failed (%v) after %d of %d bytes; the file may now end in a partial line, so this writer writes nothing more", err, n, len(buf))).In(w.path).At(0, size).WithHint("open the file again: a torn tail makes it needs-repair, and `grove repair` fixes that")
		return w.taint
	}
	if prefixLF {
		w.size++
		w.lines++
		w.prefixLF = false
	}
	w.lines++
	e := r.entry
	e.Line, e.Offset = w.lines, w.size
	w.size += int64(len(r.line) + 1)
	if !r.header {
		w.ids[e.ID] = true
		w.lastID = e.ID
	}
	return nil
}

// cutBack truncates f back to size, the committed length before a write
// that failed part-way (case 12 of the damaged-file cases: the writer may
// take back the bytes of its own torn line; a truncate needs no free
// space, so it works on a full disk, where the torn line would otherwise
// hold the room `grove repair`'s backup of it needs). Only the n bytes
// written are taken back: a file of any other length (another process
// wrote too) is left as it is. It reports whether f is size bytes again;
// a file that cannot be truncated (a wrapped one) is left as it is, a torn
// tail for the next open to find.
func cutBack(f File, size, n int64) bool {
	t, ok := f.(interface{ Truncate(int64) error })
	if !ok {
		return false
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != size+n || t.Truncate(size) != nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Size() == size
}

// Entries waits for every append issued before it to settle and returns
// the committed entries in file order, each with its own Raw. They are read
// back from the file (the committed bytes as of that moment), so a writer's
// memory does not grow with the size of its file, and a caller can change
// the result freely. A tainted writer returns its taint error instead
// (SPEC §5); a needs-repair writer returns the committed prefix.
func (w *Writer) Entries(ctx context.Context) ([]Entry, error) {
	if err := w.q.barrier(ctx); err != nil {
		return nil, err
	}
	w.mu.Lock()
	if w.state == Tainted {
		w.mu.Unlock()
		return nil, w.taint
	}
	size := w.size
	w.mu.Unlock()
	f, err := os.Open(w.path)
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "read session file: "+osReason(err)).In(w.path)
	}
	defer f.Close()
	var out []Entry
	_, err = newParser(Options{Path: w.path, Mode: Strict, KeepRaw: true, Context: ctx}, func(e Entry) error {
		out = append(out, e)
		return nil
	}).runFile(f, 0, size)
	return out, err
}

// lockWriter takes the writer lock of SPEC §5 on the open session file f
// without waiting: flock.TryLock (flock(2) on Unix, a lock past the end of
// the file on Windows), which readers never take. why says what a second
// writer would break. Errors: locked, or io_error.
func lockWriter(f *os.File, path, why string) error {
	err := flock.TryLock(f)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flock.ErrLocked):
		return errs.Wrap(errs.CodeLocked, err, "another writer holds this session file; "+why).In(path).WithHint("wait for the other writer (an agent or grove append) to finish; `grove append --wait DURATION` waits for it")
	default:
		return errs.Wrap(errs.CodeIO, err, "cannot lock session file: "+err.Error()).In(path)
	}
}

// syncDir flushes a directory, so that a file created in it survives a
// power cut.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Close waits for queued appends, then releases the lock and the file.
func (w *Writer) Close() error {
	_ = w.q.barrier(context.Background())
	w.q.close()
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.f.Close()
	if w.lock != nil && w.f != File(w.lock) {
		w.lock.Close()
	}
	return err
}
