package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/serve"
	"github.com/grove-sessions/grove/internal/testutil"
)

// The tree and workspace pages show the real leaves (SPEC §4.2) and, with
// ?all=1 (a link on each page), what the agent recorded beside them,
// marked with its kind: here a tool result of a Claude Code API message
// whose next call carries the run on.
func TestKinds_TreeAndWorkspaceToggle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"k2","cwd":"/w/kinds","timestamp":"2026-03-18T09:00:00.000Z","message":{"role":"user","content":"look"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"k2","cwd":"/w/kinds","timestamp":"2026-03-18T09:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"k2","cwd":"/w/kinds","timestamp":"2026-03-18T09:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{}}]}}`,
		`{"type":"user","uuid":"deadend-r1","parentUuid":"a1","sessionId":"k2","cwd":"/w/kinds","timestamp":"2026-03-18T09:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}`,
		`{"type":"user","uuid":"r2","parentUuid":"a2","sessionId":"k2","cwd":"/w/kinds","timestamp":"2026-03-18T09:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"y"}]}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"r2","sessionId":"k2","cwd":"/w/kinds","timestamp":"2026-03-18T09:00:03.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]}}`,
	}
	if err := os.MkdirAll(filepath.Join(dir, "-w-kinds"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "-w-kinds", "k2.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := testutil.MustTempDB(t)
	w, err := archive.OpenForWrite(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	a, err := archive.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	h := serve.New(serve.Options{Archive: a, Port: testPort, Hosts: []string{testAddr}})
	page := func(target string) string {
		t.Helper()
		ans := get(t, h, target)
		if ans.Status != 200 {
			t.Fatalf("GET %s: status %d", target, ans.Status)
		}
		return ans.Body
	}
	tree := page("/s/k2?full=1")
	if strings.Contains(tree, "deadend-r1") || !strings.Contains(tree, `href="/s/k2?all=1&amp;full=1"`) {
		t.Errorf("tree: want the dead end left out and a link to ?all=1&full=1:\n%s", tree)
	}
	all := page("/s/k2?full=1&all=1")
	if !strings.Contains(all, "deadend-r1") || !strings.Contains(all, "(parallel)") || !strings.Contains(all, `href="/s/k2?full=1"`) {
		t.Errorf("tree ?all=1: want the dead end marked (parallel) and a link back:\n%s", all)
	}
	ws := page("/w?path=/w/kinds")
	if strings.Contains(ws, "deadend-r1") || !strings.Contains(ws, "all=1") {
		t.Errorf("workspace: want the dead end left out and a link to ?all=1:\n%s", ws)
	}
	ws = page("/w?path=/w/kinds&all=1")
	if !strings.Contains(ws, "deadend-r1") || !strings.Contains(ws, "(parallel)") {
		t.Errorf("workspace ?all=1: want the dead end marked (parallel):\n%s", ws)
	}
}
