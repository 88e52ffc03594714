package serve_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/serve"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/rogpeppe/go-internal/txtar"
)

// runsServer serves the Claude Code sessions of the script
// cmd/grove/testdata/script/claude_runs.txtar (its own fixtures): a
// session with inline sub-agent runs, and a session whose Task call
// started the sub-agent session agent-b77e1f0.
func runsServer(t *testing.T) *fixture {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "cmd", "grove", "testdata", "script", "claude_runs.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	root := t.TempDir()
	for name, to := range map[string]string{
		"inline.jsonl": "-work-todo/1c0d9a2e-0000-4000-8000-000000000001.jsonl",
		"main.jsonl":   "-work-p/2c0d9a2e-0000-4000-8000-000000000002.jsonl",
		"sub.jsonl":    "-work-p/2c0d9a2e-0000-4000-8000-000000000002/subagents/agent-b77e1f0.jsonl",
	} {
		p := filepath.Join(root, filepath.FromSlash(to))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{dir: root, db: testutil.MustTempDB(t)}
	mustIndex(t, f.db, root)
	if f.a, err = archive.Open(t.Context(), f.db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.a.Close() })
	f.opts = serve.Options{Archive: f.a, Port: testPort, Hosts: []string{testAddr}}
	f.h = serve.New(f.opts)
	return f
}

// The tree page links a Task call to its sub-agent run and back: an
// inline run's root and its call within the session, a call and the
// sub-agent session of its own, and the sub-agent session's page to the
// call that started it; the session list names a sub-agent's parent by a
// link, not as "forked from or a sub-agent of".
func TestTree_SubagentRuns(t *testing.T) {
	f := runsServer(t)
	want := func(target string, parts ...string) {
		t.Helper()
		a := get(t, f.h, target)
		if a.Status != 200 {
			t.Fatalf("GET %s = %d", target, a.Status)
		}
		for _, p := range parts {
			if !strings.Contains(a.Body, p) {
				t.Errorf("GET %s: no %s in the page", target, p)
			}
		}
	}
	s1 := "/s/1c0d9a2e-0000-4000-8000-000000000001"
	want(s1,
		`⇢ sub-agent run <a href="`+s1+`/t1#entry-t1"><code>t1</code></a>`,
		`⇢ sub-agent run <a href="`+s1+`/s1#entry-s1"><code>s1</code></a>`,
		`⇠ sub-agent run of Task call <a href="`+s1+`/m2#entry-m2"><code>m2</code></a>`,
		`⇠ sub-agent run of Task call <a href="`+s1+`/m3#entry-m3"><code>m3</code></a>`,
		`⇠ sub-agent run: no Task call&#39;s prompt is its text`)
	want("/s/2c0d9a2e-0000-4000-8000-000000000002", `⇢ sub-agent <a href="/s/agent-b77e1f0"><code>agent-b77e1f0</code></a>`)
	want("/s/agent-b77e1f0", `Sub-agent run of session 2c0d9a2e-0000-4000-8000-000000000002, started by its Task call `+
		`<a href="/s/2c0d9a2e-0000-4000-8000-000000000002/a1#entry-a1"><code>a1</code></a>`)
	want("/", `↳ sub-agent of <a class="parent" href="/s/2c0d9a2e-0000-4000-8000-000000000002">`)
	if a := get(t, f.h, "/"); strings.Contains(a.Body, "forked from or a sub-agent of") {
		t.Errorf("the session list still says %q", "forked from or a sub-agent of")
	}
}
