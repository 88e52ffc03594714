package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/grove-sessions/grove/errs"
)

// Defaults of Options.
const (
	DefaultQuiet    = 250 * time.Millisecond
	DefaultMaxDelay = 2 * time.Second
	DefaultRescan   = 5 * time.Minute
)

var (
	// ErrWatchLimit is matched (errors.Is) by a *DirError in Batch.Errors
	// when the system's limit on watches is reached: on Linux, inotify's
	// fs.inotify.max_user_watches (the kernel answers ENOSPC).
	ErrWatchLimit = errors.New("watch limit reached")
	// ErrEventsLost is matched by the error in Batch.Errors when the
	// kernel's event queue overflowed (fsnotify.ErrEventOverflow) or errors
	// came faster than they were read; that batch has Rescan set.
	ErrEventsLost = errors.New("file events were lost")
)

// DirError is a directory below a root that could not be watched or read.
// Changes below it are seen only by rescans.
type DirError struct {
	Dir  string // absolute path
	Err  error
	More int // directories after Dir that failed the same way in the same walk
}

func (e *DirError) Error() string {
	msg := "cannot watch " + e.Dir + ": " + errMsg(e.Err)
	if e.More > 0 {
		msg += fmt.Sprintf(" (and %d more directories)", e.More)
	}
	if errors.Is(e.Err, syscall.ENOSPC) {
		msg += "; the inotify watch limit is reached: raise fs.inotify.max_user_watches " +
			"(sysctl); until then changes there are seen only by the periodic rescan"
	}
	return msg
}

func (e *DirError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrWatchLimit) true for a watch limit.
func (e *DirError) Is(target error) bool {
	return target == ErrWatchLimit && errors.Is(e.Err, syscall.ENOSPC)
}

// Options tune a Watcher. The zero value means the defaults.
type Options struct {
	// Quiet is how long no event must arrive before a batch is delivered.
	// Zero means DefaultQuiet (250 ms).
	Quiet time.Duration
	// MaxDelay bounds how long a batch waits, counted from its first event,
	// while events keep arriving, so a file appended to every 50 ms is still
	// delivered regularly. Zero means DefaultMaxDelay (2 s). A MaxDelay
	// below Quiet delivers every batch MaxDelay after its first event.
	MaxDelay time.Duration
	// Rescan is the period of the rescan signal, counted from the last batch
	// delivered with Rescan set. Zero means DefaultRescan (5 minutes);
	// negative means never.
	Rescan time.Duration
	// IsSession says which files are session files, whose changes are
	// reported (ingest.IsSessionFile: *.jsonl but an agent home's history
	// files, and a *.jsonl.zst). Nil means every *.jsonl file.
	IsSession func(path string) bool
}

// Batch is what changed below the roots since the previous batch.
type Batch struct {
	// Paths are the *.jsonl names created, written, renamed into place,
	// removed or renamed away: absolute, below a root's resolved path,
	// sorted, each once. A path may no longer exist. Files found in a
	// directory that was created (or renamed into place) are included.
	Paths []string
	// Rescan says events may have been missed (the periodic signal, a
	// queue overflow, a watched directory renamed away with its files):
	// walk the roots again. Paths is filled all the same.
	Rescan bool
	// Errors are the problems met since the previous batch: *DirError for
	// a directory that cannot be watched or read, ErrEventsLost, or an
	// error from the event source. The watch goes on after each.
	Errors []error
}

// Watcher watches directory trees for changes of *.jsonl files.
type Watcher struct {
	fs    *fsnotify.Watcher
	add   func(string) error // fs.Add, but for tests
	opts  Options
	dirs  map[string]bool // watched directories; owned by New, then by loop
	ndirs atomic.Int64
	out   chan Batch
	errs  chan error    // the error source, forwarded (see forwardErrors)
	lost  atomic.Bool   // forwardErrors dropped an error
	stop  chan struct{} // closed by Close
	done  chan struct{} // closed when loop ends
	wg    sync.WaitGroup
	once  sync.Once
}

// New watches every directory below each root (a root that is a symlink is
// resolved; symlinked directories below it are not followed). Batches are
// delivered on Batches until ctx ends or Close is called. It fails if the
// event source cannot be created or a root is not a readable directory;
// subdirectories that cannot be watched are reported in the first batch.
func New(ctx context.Context, roots []string, opts Options) (*Watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("start watching: %w", err)
	}
	w, err := start(ctx, fsw, fsw.Errors, fsw.Add, roots, opts)
	if err != nil {
		fsw.Close()
		return nil, err
	}
	return w, nil
}

// start is New over a given source of errors and a given way to add a
// watch (fsw's own, but for tests).
func start(ctx context.Context, fsw *fsnotify.Watcher, errSrc <-chan error, add func(string) error, roots []string, opts Options) (*Watcher, error) {
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	if opts.IsSession == nil {
		opts.IsSession = func(path string) bool { return strings.HasSuffix(path, ".jsonl") }
	}
	if opts.Rescan == 0 {
		opts.Rescan = DefaultRescan
	}
	w := &Watcher{fs: fsw, add: add, opts: opts, dirs: map[string]bool{},
		out: make(chan Batch), errs: make(chan error, 64), stop: make(chan struct{}), done: make(chan struct{})}
	p := newPending()
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("watch %s: %w", r, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("watch %s: not a directory", r)
		}
		w.addTree(abs, p, false)
	}
	w.wg.Add(2)
	go w.forwardErrors(errSrc)
	go w.loop(ctx, p)
	return w, nil
}

// Batches delivers the batches. It is closed when ctx ends or Close is
// called; read it until then, or call Close.
func (w *Watcher) Batches() <-chan Batch { return w.out }

// Dirs is the number of directories watched now.
func (w *Watcher) Dirs() int { return int(w.ndirs.Load()) }

// Close stops the watch and waits for its goroutines to end. It may be
// called more than once, and after ctx ended.
func (w *Watcher) Close() error {
	w.once.Do(func() { close(w.stop) })
	w.wg.Wait()
	return nil
}

// forwardErrors moves errors from the event source to w.errs without ever
// blocking for long: fsnotify may send an error while holding the lock that
// Add and Remove take, and loop calls those, so a blocked send could
// deadlock. An error that finds w.errs full is dropped and turns into a
// rescan.
func (w *Watcher) forwardErrors(src <-chan error) {
	defer w.wg.Done()
	for {
		select {
		case err, ok := <-src:
			if !ok {
				return
			}
			select {
			case w.errs <- err:
			default:
				w.lost.Store(true)
			}
		case <-w.done:
			return
		}
	}
}

// loop is the only goroutine that touches w.dirs and the pending batch. It
// blocks in one select; the flush timer runs only while a batch is pending.
func (w *Watcher) loop(ctx context.Context, p *pending) {
	defer w.wg.Done()
	defer close(w.done)
	defer close(w.out)
	defer w.fs.Close()
	flush := time.NewTimer(time.Hour)
	flush.Stop()
	defer flush.Stop()
	rescanTimer := time.NewTimer(w.opts.Rescan)
	defer rescanTimer.Stop()
	var rescan <-chan time.Time // nil: never
	if w.opts.Rescan > 0 {
		rescan = rescanTimer.C
	}
	ready := false
	arm := func() {
		if ready || p.empty() {
			return
		}
		now := time.Now()
		if p.first.IsZero() {
			p.first = now
		}
		flush.Reset(min(w.opts.Quiet, p.first.Add(w.opts.MaxDelay).Sub(now)))
	}
	arm() // errors from New's walk
	for {
		var out chan<- Batch
		var next Batch
		if ready {
			out, next = w.out, p.batch()
		}
		select {
		case <-ctx.Done():
			return
		case <-w.stop:
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.event(ev, p)
			arm()
		case err := <-w.errs:
			if w.handleError(err, p) {
				ready = true
			}
			arm()
		case <-flush.C:
			ready = true
		case <-rescan:
			p.rescan = true
			ready = true
		case out <- next:
			if next.Rescan && w.opts.Rescan > 0 {
				rescanTimer.Reset(w.opts.Rescan)
			}
			p.reset()
			ready = false
			flush.Stop()
		}
		if w.lost.Swap(false) {
			p.errs = append(p.errs, fmt.Errorf("%w: errors came faster than they were read; rescanning", ErrEventsLost))
			p.rescan, ready = true, true
		}
	}
}

// handleError records err in p and reports whether the batch is due at
// once: an overflow of the kernel's queue means events were lost, so a
// rescan is due now rather than after the quiet period.
func (w *Watcher) handleError(err error, p *pending) (now bool) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		p.errs = append(p.errs, fmt.Errorf("%w: %v (raise fs.inotify.max_queued_events); rescanning", ErrEventsLost, err))
		p.rescan = true
		return true
	}
	p.errs = append(p.errs, fmt.Errorf("watch: %w", err))
	return false
}

// event records one fsnotify event in p. Chmod events are ignored.
func (w *Watcher) event(ev fsnotify.Event, p *pending) {
	name := ev.Name
	switch {
	case ev.Has(fsnotify.Create):
		if fi, err := os.Lstat(name); err == nil && fi.IsDir() {
			// Files may have been made in it before its watch was added.
			w.addTree(name, p, true)
			return
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if w.dirs[name] {
			w.dropTree(name)
			if ev.Has(fsnotify.Rename) {
				// Its files left with it, without an event each.
				p.rescan = true
			}
			return
		}
	case ev.Has(fsnotify.Write):
	default:
		return
	}
	if w.opts.IsSession(name) {
		p.paths[name] = true
	}
}

// addTree watches top and every directory below it, not following
// symlinks. With scan, the *.jsonl files found are added to p.
func (w *Watcher) addTree(top string, p *pending, scan bool) {
	var limit *DirError
	failed := "" // the directory whose watch just failed: reading it fails too, report it once
	filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			// A directory removed meanwhile needs no report: its events tell.
			if !errors.Is(err, fs.ErrNotExist) && path != failed {
				p.errs = append(p.errs, &DirError{Dir: path, Err: err})
			}
			return nil
		}
		if d.IsDir() {
			switch err := w.add(path); {
			case err == nil:
				w.dirs[path] = true
			case errors.Is(err, fs.ErrNotExist):
				return fs.SkipDir
			case errors.Is(err, syscall.ENOSPC) && limit != nil:
				limit.More++
			case errors.Is(err, syscall.ENOSPC):
				limit = &DirError{Dir: path, Err: err}
				p.errs = append(p.errs, limit)
			default:
				failed = path
				p.errs = append(p.errs, &DirError{Dir: path, Err: err})
			}
			return nil
		}
		if scan && w.opts.IsSession(path) {
			if d.Type()&fs.ModeSymlink != 0 {
				if fi, err := os.Stat(path); err == nil && fi.IsDir() {
					return nil // a symlinked directory: not followed
				}
			}
			p.paths[path] = true
		}
		return nil
	})
	w.ndirs.Store(int64(len(w.dirs)))
}

// dropTree stops watching top and every directory below it.
func (w *Watcher) dropTree(top string) {
	for d := range w.dirs {
		if d == top || strings.HasPrefix(d, top+string(filepath.Separator)) {
			delete(w.dirs, d)
			w.fs.Remove(d) // an error means the kernel dropped it already
		}
	}
	w.ndirs.Store(int64(len(w.dirs)))
}

// pending is the batch being gathered.
type pending struct {
	paths  map[string]bool
	rescan bool
	errs   []error
	first  time.Time // when the batch's first event arrived; zero when none yet
}

func newPending() *pending { return &pending{paths: map[string]bool{}} }

func (p *pending) empty() bool { return len(p.paths) == 0 && !p.rescan && len(p.errs) == 0 }

func (p *pending) reset() { *p = *newPending() }

func (p *pending) batch() Batch {
	b := Batch{Rescan: p.rescan, Errors: slices.Clone(p.errs), Paths: make([]string, 0, len(p.paths))}
	for path := range p.paths {
		b.Paths = append(b.Paths, path)
	}
	slices.Sort(b.Paths)
	return b
}

func errMsg(err error) string { return errs.Reason(err) }
