package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/iox"
)

// watchPatience bounds every wait on a grove watch process: generous, so
// that a loaded machine does not fail the test.
const watchPatience = 20 * time.Second

// watchProc is a grove watch process: the test binary run as grove (see
// TestMain), with signals handled as the real binary does.
type watchProc struct {
	cmd            *exec.Cmd
	stdout, stderr *iox.LockedBuffer
	exited         chan error
	env            []string
	grove, db      string
}

// mustStartWatch starts `grove --db DB [--json] watch ARGS...` with HOME
// and XDG_DATA_HOME inside tb's temporary directory, and waits for its
// start line. It is killed when the test ends if it is still running.
func mustStartWatch(tb testing.TB, db string, json bool, args ...string) *watchProc {
	tb.Helper()
	grove, err := exec.LookPath("grove")
	if err != nil {
		tb.Fatalf("grove is not on PATH (TestMain installs the test binary as grove): %v", err)
	}
	home := tb.TempDir()
	p := &watchProc{stdout: &iox.LockedBuffer{}, stderr: &iox.LockedBuffer{}, exited: make(chan error, 1), grove: grove, db: db,
		env: append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "xdg"), "GROVE_ROOT=", "GROVE_DB=")}
	global := []string{"--db", db}
	if json {
		global = append(global, "--json")
	}
	p.cmd = exec.Command(grove, append(append(global, "watch"), args...)...)
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = p.env, p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	tb.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	p.waitFor(tb, "the start line on stderr", func() bool { return strings.Contains(p.stderr.String(), "grove: watching ") })
	return p
}

// waitFor polls ok until it holds; it fails the test if the process exits
// first or after watchPatience.
func (p *watchProc) waitFor(tb testing.TB, what string, ok func() bool) {
	tb.Helper()
	deadline := time.Now().Add(watchPatience)
	for !ok() {
		select {
		case err := <-p.exited:
			p.exited <- err
			tb.Fatalf("waiting for %s: grove watch exited (%v)\nstdout:\n%s\nstderr:\n%s", what, err, p.stdout, p.stderr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("waiting for %s: nothing after %v\nstdout:\n%s\nstderr:\n%s", what, watchPatience, p.stdout, p.stderr)
		}
	}
}

// sessions runs `grove --json sessions` on the index the watch keeps and
// returns each session's entries by file path.
func (p *watchProc) sessions(tb testing.TB) map[string]int {
	tb.Helper()
	cmd := exec.Command(p.grove, "--db", p.db, "--json", "sessions")
	cmd.Env = p.env
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("grove --json sessions: %v\n%s", err, out)
	}
	var doc struct {
		Sessions []struct {
			Path    string `json:"path"`
			Entries int    `json:"entries"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		tb.Fatalf("grove --json sessions: %v\n%s", err, out)
	}
	got := map[string]int{}
	for _, s := range doc.Sessions {
		got[s.Path] = s.Entries
	}
	return got
}

// stop sends sig and waits for the process to exit; it returns the exit
// status.
func (p *watchProc) stop(tb testing.TB, sig os.Signal) int {
	tb.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		tb.Fatal(err)
	}
	select {
	case err := <-p.exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			tb.Fatal(err)
		}
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			tb.Fatalf("grove watch was ended by %v, not by an exit\nstderr:\n%s", ws.Signal(), p.stderr)
		}
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(watchPatience):
		tb.Fatalf("grove watch still running %v after %v\nstderr:\n%s", watchPatience, sig, p.stderr)
		return -1
	}
}

// piSession is a tiny pi version 3 session: its header and n user messages
// in a chain.
func piSession(id string, n int) string {
	s := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-03-03T08:00:00.000Z","cwd":"/workspace/watch"}`+"\n", id)
	for i := 1; i <= n; i++ {
		s += piMessage(i)
	}
	return s
}

// piMessage is the i-th user message of piSession (i from 1).
func piMessage(i int) string {
	parent := "null"
	if i > 1 {
		parent = fmt.Sprintf(`"m%d"`, i-1)
	}
	return fmt.Sprintf(`{"type":"message","id":"m%d","parentId":%s,"timestamp":"2026-03-03T08:00:%02d.000Z",`+
		`"message":{"role":"user","content":[{"type":"text","text":"message %d"}],"timestamp":%d}}`+"\n",
		i, parent, i, i, 1772524800000+int64(i)*1000)
}

// TestWatch_Process runs grove watch as a process and changes its root:
// a new session, an append, a new directory with a session already in it,
// a removal (with --no-keep: the session leaves the index; kept, it would
// stay gone, see kept_test.go); the index follows each, and SIGINT ends it
// with status 0.
func TestWatch_Process(t *testing.T) {
	t.Parallel()
	work, root := mustWatchRoot(t, 0)
	db := filepath.Join(work, "index.db")
	p := mustStartWatch(t, db, false, "--root", root, "--debounce", "100ms", "--no-keep")
	if got := p.stderr.String(); !strings.HasPrefix(got, "grove: watching 1 root (1 directory) for *.jsonl changes; Ctrl-C stops\n") {
		t.Errorf("start line = %q", got)
	}
	p.waitFor(t, "the first pass's line", func() bool { return strings.Contains(p.stdout.String(), " 0 files: ") })

	a := filepath.Join(root, "a.jsonl")
	if err := os.WriteFile(a, []byte(piSession("watch-a", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "a.jsonl indexed", func() bool { return p.sessions(t)[a] == 2 })

	f, err := os.OpenFile(a, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(piMessage(3)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p.waitFor(t, "a.jsonl's appended entry", func() bool { return p.sessions(t)[a] == 3 })

	// A directory whose file was written before it came in: made outside
	// the root and renamed into it, as no event can tell of the file.
	made := filepath.Join(work, "2026-03-04")
	if err := os.Mkdir(made, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(made, "b.jsonl"), []byte(piSession("watch-b", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(made, filepath.Join(root, "2026-03-04")); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(root, "2026-03-04", "b.jsonl")
	p.waitFor(t, "b.jsonl in a new directory indexed", func() bool { return p.sessions(t)[b] == 1 })
	// And one made in place, file right after directory.
	c := filepath.Join(root, "2026-03-05", "c.jsonl")
	if err := os.Mkdir(filepath.Dir(c), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c, []byte(piSession("watch-c", 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "c.jsonl in a new directory indexed", func() bool { return p.sessions(t)[c] == 4 })

	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "a.jsonl's session removed", func() bool {
		_, ok := p.sessions(t)[a]
		return !ok
	})

	if code := p.stop(t, os.Interrupt); code != 0 {
		t.Errorf("exit status after SIGINT = %d, want 0\nstderr:\n%s", code, p.stderr)
	}
	if got := p.stderr.String(); !strings.HasSuffix(got, "grove: stopped\n") || strings.Count(got, "\n") != 2 {
		t.Errorf("stderr = %q, want the start line and grove: stopped", got)
	}
	line := regexp.MustCompile(`^\d\d:\d\d:\d\d (1 file|\d+ files): \d+ indexed \((1 entry|\d+ entries)\), \d+ unchanged, \d+ removed$`)
	lines := strings.Split(strings.TrimSuffix(p.stdout.String(), "\n"), "\n")
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("stdout line %q does not match %s", l, line)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, " 1 removed") {
		t.Errorf("last line = %q, want the removal", last)
	}
}

// With --json, every pass is one compact JSON document on its own line
// (NDJSON), with its time and trigger; SIGTERM stops it like SIGINT.
func TestWatch_ProcessJSON(t *testing.T) {
	t.Parallel()
	work, root := mustWatchRoot(t, 1)
	p := mustStartWatch(t, filepath.Join(work, "index.db"), true, "--root", root, "--debounce", "100ms")
	p.waitFor(t, "the first pass's document", func() bool { return strings.Count(p.stdout.String(), "\n") == 1 })
	if err := os.WriteFile(filepath.Join(root, "b.jsonl"), []byte(piSession("watch-b", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "the change's document", func() bool { return strings.Count(p.stdout.String(), "\n") == 2 })
	if code := p.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit status after SIGTERM = %d, want 0\nstderr:\n%s", code, p.stderr)
	}

	type pass struct {
		Time    string `json:"time"`
		Trigger string `json:"trigger"`
		Files   int    `json:"files"`
		Indexed int    `json:"indexed"`
		Entries int    `json:"entries"`
		Failed  []any  `json:"failed"`
	}
	want := []pass{{Trigger: "start", Files: 1, Indexed: 1, Entries: 1, Failed: []any{}},
		{Trigger: "change", Files: 1, Indexed: 1, Entries: 2, Failed: []any{}}}
	lines := strings.Split(strings.TrimSuffix(p.stdout.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("stdout has %d lines, want %d:\n%s", len(lines), len(want), p.stdout)
	}
	for i, l := range lines {
		var got pass
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d = %q: %v", i+1, l, err)
		}
		ts, err := time.Parse(time.RFC3339, got.Time)
		if err != nil || ts.Location() != time.UTC {
			t.Errorf("line %d: time %q is not RFC 3339 in UTC", i+1, got.Time)
		}
		got.Time = ""
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Errorf("line %d = %+v, want %+v", i+1, got, want[i])
		}
	}
}

// TestWatch_PrivateModes: a grove watch started under umask 000 makes the
// index directory 0700 and the index, its -wal, -shm and lock files 0600,
// checked while it runs, after its first pass and after a change pass (SPEC
// §6: 0600 and 0700 whatever the umask). Not parallel: the umask is the
// process's, and the watch inherits it when it starts.
func TestWatch_PrivateModes(t *testing.T) {
	work, root := mustWatchRoot(t, 2)
	db := filepath.Join(work, "grove-made", "index.db")
	old := umask(0)
	p := mustStartWatch(t, db, false, "--root", root, "--debounce", "100ms")
	umask(old)
	modes := func(when string) {
		t.Helper()
		for _, c := range []struct {
			path string
			want os.FileMode
		}{{filepath.Dir(db), 0o700}, {db, 0o600}, {db + "-wal", 0o600}, {db + "-shm", 0o600}, {db + ".lock", 0o600}} {
			fi, err := os.Stat(c.path)
			if err != nil {
				t.Errorf("%s: %s: %v", when, c.path, err)
			} else if got := fi.Mode().Perm(); got != c.want {
				t.Errorf("%s: %s is %04o, want %04o", when, c.path, got, c.want)
			}
		}
	}
	p.waitFor(t, "the first pass's line", func() bool { return strings.Contains(p.stdout.String(), " 1 file: ") })
	modes("after the first pass")
	if err := os.WriteFile(filepath.Join(root, "b.jsonl"), []byte(piSession("watch-b", 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "b.jsonl indexed", func() bool { return p.sessions(t)[filepath.Join(root, "b.jsonl")] == 3 })
	modes("after a change pass")
}

// TestWatch_SourcesFileWarns: a watch whose copy of the roots beside the
// index cannot be written (a directory is in its way) warns on stderr and
// goes on watching, as grove index does: the roots are in the index's own
// table.
func TestWatch_SourcesFileWarns(t *testing.T) {
	work, root := mustWatchRoot(t, 2)
	db := filepath.Join(work, "index.db")
	if err := os.MkdirAll(filepath.Join(archive.SourcesPath(db), "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := mustStartWatch(t, db, false, "--root", root, "--debounce", "100ms")
	p.waitFor(t, "the warning about "+archive.SourcesPath(db), func() bool {
		return strings.Contains(p.stderr.String(), "warning: ") && strings.Contains(p.stderr.String(), archive.SourcesPath(db))
	})
	if err := os.WriteFile(filepath.Join(root, "b.jsonl"), []byte(piSession("watch-b", 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "b.jsonl indexed after the warning", func() bool { return p.sessions(t)[filepath.Join(root, "b.jsonl")] == 3 })
}

// mustWatchRoot makes a work directory holding a session root, "sessions",
// and returns both; with entries > 0 the root holds a.jsonl, a pi session
// (watch-a) of that many entries.
func mustWatchRoot(tb testing.TB, entries int) (work, root string) {
	tb.Helper()
	work = tb.TempDir()
	root = filepath.Join(work, "sessions")
	if err := os.Mkdir(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	if entries > 0 {
		if err := os.WriteFile(filepath.Join(root, "a.jsonl"), []byte(piSession("watch-a", entries)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return work, root
}
