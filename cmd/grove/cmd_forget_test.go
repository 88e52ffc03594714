package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/pgtest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// forgetRoot copies the pi demo sessions into a new root and indexes it
// into a new index; it returns the index and the root.
func forgetRoot(t *testing.T) (db, root string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "sessions")
	for _, f := range []string{"v1-linear.jsonl", "v2-branches.jsonl", "v3-tree.jsonl"} {
		testutil.MustCopy(t, testutil.Testdata(t, "pi/"+f), root, f)
	}
	db = filepath.Join(dir, "index.db")
	if _, err := runGrove(t, db, "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	return db, root
}

// sessionPaths lists the files of the sessions `grove --json sessions`
// lists.
func sessionPaths(t *testing.T, db string) []string {
	t.Helper()
	out, err := runGrove(t, db, "--json", "sessions")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sessions []struct {
			Path string `json:"path"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("grove --json sessions: %v\n%s", err, out)
	}
	var paths []string
	for _, s := range doc.Sessions {
		paths = append(paths, filepath.Base(s.Path))
	}
	return paths
}

// forgetOnTerminal runs `grove forget ARGS` with a pseudo-terminal as its
// stdin, types answer on it, and returns the exit status and stderr.
func forgetOnTerminal(t *testing.T, db, answer string, args ...string) (int, string) {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	go io.Copy(io.Discard, master) // the terminal's echo
	cmd := exec.Command(mustGroveBinary(t), append([]string{"--db", db, "forget"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	if _, err := master.Write([]byte(answer + "\n")); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String() + stdout.String()
}

// On a terminal, grove forget lists the sessions and asks; anything but
// y or yes forgets nothing and exits 1, y forgets.
func TestForget_AsksOnTheTerminal(t *testing.T) {
	db, _ := forgetRoot(t)
	code, out := forgetOnTerminal(t, db, "n", "5b7e", "e4c1")
	if code != 1 || !strings.Contains(out, "grove forget: 2 sessions to remove from the index for good:") ||
		!strings.Contains(out, "5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13  pi  ") || !strings.Contains(out, "forget 2 sessions? [y/N] ") ||
		!strings.Contains(out, "not confirmed: nothing was forgotten") {
		t.Fatalf("answered n: exit %d, output:\n%s\nwant exit 1, the list, the question and nothing forgotten", code, out)
	}
	if got := sessionPaths(t, db); len(got) != 3 {
		t.Fatalf("after answering n the index lists %v, want all 3 sessions", got)
	}
	code, out = forgetOnTerminal(t, db, "y", "5b7e", "e4c1")
	if code != 0 || !strings.Contains(out, "2 sessions forgotten") {
		t.Fatalf("answered y: exit %d, output:\n%s", code, out)
	}
	if got := sessionPaths(t, db); len(got) != 1 || got[0] != "v1-linear.jsonl" {
		t.Fatalf("after answering y the index lists %v, want v1-linear.jsonl only", got)
	}
}

// A Claude Code session and its sub-agent: forgetting either leaves the
// other answering byte for byte as before, and the next index takes
// neither back.
func TestForget_SubAgentAndParent(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "projects", "-home-dev-app")
	const id = "7f3c2a10-0000-4000-8000-000000000001"
	parent := testutil.MustCopy(t, testutil.Testdata(t, "claude/"+id+".jsonl"), root, id+".jsonl")
	sub := testutil.MustCopy(t, testutil.Testdata(t, "claude/"+id+"/subagents/agent-a9f1c2d.jsonl"), filepath.Join(root, id, "subagents"), "agent-a9f1c2d.jsonl")
	db := filepath.Join(dir, "index.db")
	if _, err := runGrove(t, db, "index", "--root", filepath.Join(dir, "projects")); err != nil {
		t.Fatal(err)
	}
	views := func(file string) string {
		t.Helper()
		var all strings.Builder
		for _, cmd := range [][]string{{"path", file}, {"messages", file}, {"tree", file}, {"context", file}, {"export", file}} {
			out, err := runGrove(t, db, cmd...)
			if err != nil {
				t.Fatal(err)
			}
			all.WriteString(out)
		}
		return all.String()
	}
	subBefore := views(sub)

	if _, err := runGrove(t, db, "forget", "--yes", parent); err != nil {
		t.Fatal(err)
	}
	if got := views(sub); got != subBefore {
		t.Fatalf("the sub-agent's answers changed when its parent was forgotten:\n%s\nwant:\n%s", got, subBefore)
	}
	if _, err := runGrove(t, db, "path", parent); err == nil || !strings.Contains(err.Error(), "unknown_session") && !strings.Contains(err.Error(), "no indexed session") {
		t.Fatalf("grove path of the forgotten parent: %v, want no indexed session", err)
	}

	// Back, by a committed line the agent added; then the sub-agent goes.
	f, err := os.OpenFile(parent, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"user","uuid":"c0ffee00-0000-4000-8000-000000000099","parentUuid":null,"sessionId":"` + id + `","timestamp":"2026-03-05T10:00:00.000Z","cwd":"/home/dev/app","message":{"role":"user","content":"one more"}}` + "\n")
	f.Close()
	if _, err := runGrove(t, db, "index", "--root", filepath.Join(dir, "projects")); err != nil {
		t.Fatal(err)
	}
	if _, err := runGrove(t, db, "path", parent); err != nil {
		t.Fatalf("the parent with a new committed line is not back: %v", err)
	}
	parentBefore := views(parent)
	if _, err := runGrove(t, db, "forget", "--yes", sub); err != nil {
		t.Fatal(err)
	}
	if got := views(parent); got != parentBefore {
		t.Fatalf("the parent's answers changed when its sub-agent was forgotten:\n%s\nwant:\n%s", got, parentBefore)
	}
	out, err := runGrove(t, db, "--json", "index", "--root", filepath.Join(dir, "projects"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"forgotten":1`) {
		t.Fatalf("index after forgetting the sub-agent: %s, want forgotten 1", out)
	}
	if got := sessionPaths(t, db); len(got) != 1 || got[0] != id+".jsonl" {
		t.Fatalf("the index lists %v, want the parent only", got)
	}
}

// grove watch does not take a forgotten file back while its committed
// lines are unchanged (the same bytes put in its place, as an editor
// saves), and does once a line is committed.
func TestForget_Watch(t *testing.T) {
	t.Parallel()
	work, root := mustWatchRoot(t, 0)
	db := filepath.Join(work, "index.db")
	a := filepath.Join(root, "a.jsonl")
	if err := os.WriteFile(a, []byte(piSession("forget-a", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := mustStartWatch(t, db, false, "--root", root, "--debounce", "100ms")
	p.waitFor(t, "a.jsonl indexed", func() bool { return p.sessions(t)[a] == 2 })

	forget := exec.Command(p.grove, "--db", p.db, "forget", "--yes", a)
	forget.Env = p.env
	if out, err := forget.CombinedOutput(); err != nil {
		t.Fatalf("grove forget: %v\n%s", err, out)
	}
	// The same bytes in a's place (a new inode, a new mtime), then a new
	// file b: once b is in, the pass that saw a's change is over.
	tmp := filepath.Join(work, "a.jsonl.new")
	if err := os.WriteFile(tmp, []byte(piSession("forget-a", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, a); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(root, "b.jsonl")
	if err := os.WriteFile(b, []byte(piSession("forget-b", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "b.jsonl indexed", func() bool { return p.sessions(t)[b] == 1 })
	if n, ok := p.sessions(t)[a]; ok {
		t.Fatalf("watch took the forgotten a.jsonl back (%d entries) when the same bytes replaced it", n)
	}

	f, err := os.OpenFile(a, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(piMessage(3))
	f.Close()
	p.waitFor(t, "a.jsonl back with its new line", func() bool { return p.sessions(t)[a] == 3 })
	if code := p.stop(t, os.Interrupt); code != 0 {
		t.Errorf("exit status after SIGINT = %d, want 0\nstderr:\n%s", code, p.stderr)
	}
}

// In a team's index (PostgreSQL, SPEC §10) a grove forgets its own
// source's sessions only: another source's copy of the same file stays,
// that source's next index is untouched, and naming a session only
// another source holds is unknown_session with a hint naming --source.
func TestForget_PostgresSources(t *testing.T) {
	if ok, why := pgtest.Available(); !ok {
		t.Skip(why)
	}
	url := pgtest.DB(t)
	root := filepath.Join(t.TempDir(), "sessions")
	for _, f := range []string{"v1-linear.jsonl", "v2-branches.jsonl", "v3-tree.jsonl"} {
		testutil.MustCopy(t, testutil.Testdata(t, "pi/"+f), root, f)
	}
	for _, src := range []string{"ana", "ben"} {
		groveOut(t, "--db", url, "index", "--source", src, "--root", root)
	}
	out := groveOut(t, "--db", url, "--json", "forget", "--source", "ana", "--yes", "5b7e")
	if !strings.Contains(out, `"source":"ana"`) || strings.Count(out, `"id"`) != 1 {
		t.Fatalf("forget --source ana 5b7e answered %s, want ana's session only", out)
	}
	sessions := groveOut(t, "--db", url, "--json", "sessions")
	if n := strings.Count(sessions, `"id":"5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13"`); n != 1 || !strings.Contains(sessions, `"source":"ben","path":"`+filepath.Join(root, "v3-tree.jsonl")) {
		t.Fatalf("after ana forgot 5b7e the index lists it %d times, want ben's once:\n%s", n, sessions)
	}
	if out := groveOut(t, "--db", url, "--json", "index", "--source", "ana", "--root", root); !strings.Contains(out, `"forgotten":1`) {
		t.Errorf("ana's next index: %s, want forgotten 1", out)
	}
	if out := groveOut(t, "--db", url, "--json", "index", "--source", "ben", "--root", root); strings.Contains(out, `"forgotten"`) || !strings.Contains(out, `"unchanged":3`) {
		t.Errorf("ben's next index: %s, want 3 unchanged and nothing forgotten", out)
	}
	p := startGrove(t, "--db", url, "--json", "forget", "--source", "carl", "--yes", "5b7e")
	if code := p.wait(t); code != 1 || !strings.Contains(p.stdout.String(), `"code":"unknown_session"`) || !strings.Contains(p.stdout.String(), "--source ben") {
		t.Fatalf("carl forgetting ben's session: exit %d, %s; want 1, unknown_session naming --source ben", code, p.stdout)
	}
}
