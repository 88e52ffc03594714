package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// patience bounds every wait for a batch: generous, so that a loaded
// machine does not fail the tests; no test asserts a shorter time.
const patience = 15 * time.Second

// fast are options that deliver batches soon after the last event.
var fast = Options{Quiet: 50 * time.Millisecond, MaxDelay: 500 * time.Millisecond, Rescan: -1}

// mustRoot returns a new temporary directory, symlinks resolved, as the
// watcher names the paths below it.
func mustRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// mustWatch starts a watcher on roots, closed when the test ends.
func mustWatch(tb testing.TB, roots []string, opts Options) *Watcher {
	tb.Helper()
	w, err := New(context.Background(), roots, opts)
	if err != nil {
		tb.Fatalf("New(%q) = %v", roots, err)
	}
	tb.Cleanup(func() { w.Close() })
	return w
}

// recorder reads a watcher's batches and keeps them all.
type recorder struct {
	w       *Watcher
	batches []Batch
}

// waitFor reads batches until one satisfies ok, and returns it; it fails
// the test after patience.
func (r *recorder) waitFor(tb testing.TB, what string, ok func(Batch) bool) Batch {
	tb.Helper()
	timeout := time.After(patience)
	for {
		select {
		case b, open := <-r.w.Batches():
			if !open {
				tb.Fatalf("waiting for %s: Batches closed; got %+v", what, r.batches)
			}
			r.batches = append(r.batches, b)
			if ok(b) {
				return b
			}
		case <-timeout:
			tb.Fatalf("waiting for %s: nothing after %v; got %+v", what, patience, r.batches)
		}
	}
}

// waitPath waits for a batch that names path.
func (r *recorder) waitPath(tb testing.TB, path string) Batch {
	tb.Helper()
	return r.waitFor(tb, path, func(b Batch) bool { return slices.Contains(b.Paths, path) })
}

// drain reads the batches already waiting, without waiting for more.
func (r *recorder) drain() {
	for {
		select {
		case b, ok := <-r.w.Batches():
			if !ok {
				return
			}
			r.batches = append(r.batches, b)
		default:
			return
		}
	}
}

// seen is every path of every batch read so far.
func (r *recorder) seen() []string {
	var all []string
	for _, b := range r.batches {
		all = append(all, b.Paths...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

func mustWrite(tb testing.TB, path, data string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func mustAppend(tb testing.TB, path, data string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

func TestWatcher_FileEvents(t *testing.T) {
	t.Parallel()
	root := mustRoot(t)
	r := &recorder{w: mustWatch(t, []string{root}, fast)}
	a, b := filepath.Join(root, "a.jsonl"), filepath.Join(root, "b.jsonl")
	notes := filepath.Join(root, "notes.txt")

	mustWrite(t, notes, "not a session\n")
	mustWrite(t, a, `{"type":"session"}`+"\n")
	r.waitPath(t, a) // created

	mustAppend(t, a, `{"type":"message"}`+"\n")
	r.waitPath(t, a) // written

	if err := os.Rename(a, b); err != nil {
		t.Fatal(err)
	}
	got := r.waitPath(t, b) // renamed into place
	if !slices.Contains(got.Paths, a) && !slices.Contains(r.seen(), a) {
		t.Errorf("rename %s → %s: batches %+v never name the old path", a, b, r.batches)
	}

	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, notes, "still not a session\n")
	r.waitFor(t, "removal of b.jsonl", func(x Batch) bool {
		_, err := os.Stat(b)
		return slices.Contains(x.Paths, b) && errors.Is(err, os.ErrNotExist)
	})
	if slices.Contains(r.seen(), notes) {
		t.Errorf("batches %+v name %s, which is not *.jsonl", r.batches, notes)
	}
	for _, x := range r.batches {
		if x.Rescan || len(x.Errors) > 0 {
			t.Errorf("batch %+v: want no rescan and no errors", x)
		}
	}
}

// A directory that appears with files already in it (made elsewhere, then
// renamed into the root) is watched and read at once.
func TestWatcher_NewDirectory(t *testing.T) {
	t.Parallel()
	root, elsewhere := mustRoot(t), mustRoot(t)
	w := mustWatch(t, []string{root}, fast)
	r := &recorder{w: w}
	if got := w.Dirs(); got != 1 {
		t.Fatalf("Dirs() = %d, want 1", got)
	}

	made := filepath.Join(elsewhere, "2026-03", "deeper")
	if err := os.MkdirAll(made, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(made, "old.jsonl"), "{}\n")
	mustWrite(t, filepath.Join(elsewhere, "2026-03", "top.jsonl"), "{}\n")
	if err := os.Rename(filepath.Join(elsewhere, "2026-03"), filepath.Join(root, "2026-03")); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(root, "2026-03", "deeper", "old.jsonl")
	top := filepath.Join(root, "2026-03", "top.jsonl")
	r.waitFor(t, "the files of the moved directory", func(Batch) bool {
		seen := r.seen()
		return slices.Contains(seen, old) && slices.Contains(seen, top)
	})
	if got := w.Dirs(); got != 3 {
		t.Errorf("Dirs() = %d after a tree of 2 directories came in, want 3", got)
	}

	// The new directories are watched: a later write there is an event.
	mustAppend(t, old, "{}\n")
	r.waitPath(t, old)

	// mkdir -p and a file at once, as pi makes a new workspace's directory.
	fresh := filepath.Join(root, "--workspace-new--", "sub")
	if err := os.MkdirAll(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(fresh, "s.jsonl"), "{}\n")
	r.waitPath(t, filepath.Join(fresh, "s.jsonl"))
	mustAppend(t, filepath.Join(fresh, "s2.jsonl"), "{}\n")
	r.waitPath(t, filepath.Join(fresh, "s2.jsonl"))
}

func TestWatcher_DirectoryGone(t *testing.T) {
	t.Parallel()
	root, elsewhere := mustRoot(t), mustRoot(t)
	for _, d := range []string{"removed/sub", "moved/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(root, d, "s.jsonl"), "{}\n")
	}
	w := mustWatch(t, []string{root}, fast)
	r := &recorder{w: w}
	if got := w.Dirs(); got != 5 {
		t.Fatalf("Dirs() = %d, want 5", got)
	}

	// rm -r: every file's removal is an event.
	if err := os.RemoveAll(filepath.Join(root, "removed")); err != nil {
		t.Fatal(err)
	}
	r.waitPath(t, filepath.Join(root, "removed", "sub", "s.jsonl"))

	// mv away: no event per file, so a rescan is asked for.
	if err := os.Rename(filepath.Join(root, "moved"), filepath.Join(elsewhere, "moved")); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "a rescan after a directory was renamed away", func(b Batch) bool { return b.Rescan })
	if got := w.Dirs(); got != 1 {
		t.Errorf("Dirs() = %d after both trees left, want 1", got)
	}
	// The moved tree's watches are gone: writes there are not reported
	// under the old names. A write in the root proves the events so far
	// were all read.
	mustAppend(t, filepath.Join(elsewhere, "moved", "sub", "s.jsonl"), "{}\n")
	marker := filepath.Join(root, "marker.jsonl")
	mustWrite(t, marker, "{}\n")
	r.waitPath(t, marker)
	for _, p := range r.seen() {
		if strings.HasPrefix(p, filepath.Join(root, "moved")+"/") {
			t.Errorf("batches %+v name %s, below a directory renamed away", r.batches, p)
		}
	}
}

// Many writes in a burst come out as few batches, and a file appended to
// without pause is still delivered before the appends stop (MaxDelay).
func TestWatcher_Debounce(t *testing.T) {
	t.Parallel()
	t.Run("burst", func(t *testing.T) {
		t.Parallel()
		root := mustRoot(t)
		r := &recorder{w: mustWatch(t, []string{root}, Options{Quiet: 300 * time.Millisecond, MaxDelay: 5 * time.Second, Rescan: -1})}
		var want []string
		for i := range 3 {
			want = append(want, filepath.Join(root, fmt.Sprintf("s%d.jsonl", i)))
		}
		// The writes go on while batches are read, so that each event
		// could be a batch of its own if nothing waited for the quiet.
		wrote := make(chan error, 1)
		go func() {
			var err error
			for range 50 {
				for _, p := range want {
					f, e := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
					if e == nil {
						_, e = f.WriteString("{}\n")
						e = errors.Join(e, f.Close())
					}
					err = errors.Join(err, e)
				}
				time.Sleep(time.Millisecond)
			}
			wrote <- err
		}()
		r.waitFor(t, "all three files", func(Batch) bool { return len(r.seen()) == 3 })
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // a batch that would come after the writes
		r.drain()
		if got := r.seen(); !slices.Equal(got, want) {
			t.Errorf("paths = %q, want %q", got, want)
		}
		// 150 writes within about 100 ms: one batch, or a few if the
		// machine stalls for the quiet period on the way.
		if len(r.batches) > 3 {
			t.Errorf("150 writes gave %d batches, want 1 to 3: %+v", len(r.batches), r.batches)
		}
	})
	t.Run("steady appends", func(t *testing.T) {
		t.Parallel()
		root := mustRoot(t)
		w := mustWatch(t, []string{root}, Options{Quiet: time.Hour, MaxDelay: 200 * time.Millisecond, Rescan: -1})
		path := filepath.Join(root, "live.jsonl")
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // an agent appending every 20 ms: never quiet for an hour
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
					f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
					if err == nil {
						f.WriteString("{}\n")
						f.Close()
					}
				}
			}
		}()
		defer func() { close(stop); <-done }()
		r := &recorder{w: w}
		for i := range 3 {
			b := r.waitPath(t, path)
			if len(b.Paths) != 1 {
				t.Errorf("batch %d = %+v, want just %s", i, b, path)
			}
		}
	})
}

// startWithErrors starts a watcher on root whose errors come from the
// returned channel instead of fsnotify's.
func startWithErrors(tb testing.TB, root string, opts Options) (*Watcher, chan<- error) {
	tb.Helper()
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		tb.Fatal(err)
	}
	errs := make(chan error)
	w, err := start(context.Background(), fsw, errs, fsw.Add, []string{root}, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w, errs
}

// An overflow of the kernel's queue asks for a rescan at once, not after
// the quiet period; another error waits for its batch and asks for none.
func TestWatcher_Errors(t *testing.T) {
	t.Parallel()
	t.Run("overflow", func(t *testing.T) {
		t.Parallel()
		w, errs := startWithErrors(t, mustRoot(t), Options{Quiet: time.Hour, MaxDelay: time.Hour, Rescan: time.Hour})
		errs <- fsnotify.ErrEventOverflow
		r := &recorder{w: w}
		b := r.waitFor(t, "a batch after the overflow", func(Batch) bool { return true })
		if !b.Rescan || len(b.Errors) != 1 || !errors.Is(b.Errors[0], ErrEventsLost) {
			t.Fatalf("batch after an overflow = %+v, want Rescan and one ErrEventsLost", b)
		}
		if msg := b.Errors[0].Error(); !strings.Contains(msg, "max_queued_events") {
			t.Errorf("overflow error %q does not name fs.inotify.max_queued_events", msg)
		}
	})
	t.Run("other", func(t *testing.T) {
		t.Parallel()
		root := mustRoot(t)
		w, errs := startWithErrors(t, root, fast)
		readErr := errors.New("read error")
		errs <- readErr
		r := &recorder{w: w}
		b := r.waitFor(t, "a batch after the error", func(Batch) bool { return true })
		if b.Rescan || len(b.Errors) != 1 || !errors.Is(b.Errors[0], readErr) {
			t.Fatalf("batch after an error = %+v, want no Rescan and the error", b)
		}
		path := filepath.Join(root, "s.jsonl")
		mustWrite(t, path, "{}\n")
		r.waitPath(t, path) // the watch goes on
	})
}

func TestWatcher_PeriodicRescan(t *testing.T) {
	t.Parallel()
	root := mustRoot(t)
	r := &recorder{w: mustWatch(t, []string{root}, Options{Quiet: time.Hour, Rescan: 50 * time.Millisecond})}
	for range 3 {
		b := r.waitFor(t, "a rescan", func(Batch) bool { return true })
		if !b.Rescan || len(b.Paths) != 0 || len(b.Errors) != 0 {
			t.Fatalf("batch = %+v, want only Rescan", b)
		}
	}
}

// Past the watch limit the directories are reported once, with the sysctl
// to raise, and the rest is watched.
func TestWatcher_WatchLimit(t *testing.T) {
	t.Parallel()
	root := mustRoot(t)
	for _, d := range []string{"full/a", "full/b", "ok"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(root, "full")
	add := func(dir string) error {
		if dir == full || strings.HasPrefix(dir, full+"/") {
			return os.NewSyscallError("inotify_add_watch", syscall.ENOSPC)
		}
		return fsw.Add(dir)
	}
	w, err := start(context.Background(), fsw, fsw.Errors, add, []string{root}, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := w.Dirs(); got != 2 {
		t.Errorf("Dirs() = %d, want 2 (the root and ok)", got)
	}
	r := &recorder{w: w}
	b := r.waitFor(t, "the watch-limit error", func(b Batch) bool { return len(b.Errors) > 0 })
	if len(b.Errors) != 1 || !errors.Is(b.Errors[0], ErrWatchLimit) {
		t.Fatalf("errors = %v, want one ErrWatchLimit", b.Errors)
	}
	msg := b.Errors[0].Error()
	for _, want := range []string{full + ":", "and 2 more directories", "fs.inotify.max_user_watches"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not hold %q", msg, want)
		}
	}
	ok := filepath.Join(root, "ok", "s.jsonl")
	mustWrite(t, ok, "{}\n")
	r.waitPath(t, ok)
}

// Symlinked directories below a root are not followed; a root that is a
// symlink is.
func TestWatcher_Symlinks(t *testing.T) {
	t.Parallel()
	real, other := mustRoot(t), mustRoot(t)
	link := filepath.Join(mustRoot(t), "sessions")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(real, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	w := mustWatch(t, []string{link}, fast)
	if got := w.Dirs(); got != 1 {
		t.Errorf("Dirs() = %d, want 1 (the symlinked directory below the root is not followed)", got)
	}
	r := &recorder{w: w}
	mustWrite(t, filepath.Join(other, "outside.jsonl"), "{}\n")
	mustWrite(t, filepath.Join(real, "inside.jsonl"), "{}\n")
	r.waitPath(t, filepath.Join(real, "inside.jsonl"))
	if got := r.seen(); len(got) != 1 {
		t.Errorf("paths = %q, want only %s", got, filepath.Join(real, "inside.jsonl"))
	}
}

func TestNew_Errors(t *testing.T) {
	t.Parallel()
	root := mustRoot(t)
	file := filepath.Join(root, "s.jsonl")
	mustWrite(t, file, "{}\n")
	for _, bad := range []string{filepath.Join(root, "missing"), file} {
		if w, err := New(context.Background(), []string{root, bad}, fast); err == nil {
			w.Close()
			t.Errorf("New(%q) = nil error, want one", bad)
		}
	}
}

// Ending ctx, or Close, ends every goroutine of the watcher and fsnotify,
// and closes Batches. Not parallel: it counts goroutines.
func TestWatcher_Close(t *testing.T) {
	waitGoroutines := func(t *testing.T, want int) {
		t.Helper()
		deadline := time.Now().Add(patience)
		for runtime.NumGoroutine() > want {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	root := mustRoot(t)

	t.Run("ctx", func(t *testing.T) {
		base := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		w, err := New(ctx, []string{root}, fast)
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(root, "pending.jsonl"), "{}\n") // a batch nobody reads
		cancel()
		for range w.Batches() {
		}
		waitGoroutines(t, base)
		w.Close()
	})
	t.Run("Close", func(t *testing.T) {
		base := runtime.NumGoroutine()
		w, err := New(context.Background(), []string{root}, fast)
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, filepath.Join(root, "pending.jsonl"), "{}\n")
		time.Sleep(2 * fast.Quiet) // let the batch wait for a reader that never comes
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("second Close() = %v", err)
		}
		for range w.Batches() {
		}
		waitGoroutines(t, base)
	})
}
