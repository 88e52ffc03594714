package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// grove mcp answers while grove watch, another process, indexes appends
// to the session it reads: every call answers at once, with the index as
// the watch last committed it (SPEC §12; SQLite's WAL: readers never
// wait). A call between an append and its indexing may find the file
// changed (stale_index, naming the session); no other error is allowed,
// and the appended entries reach the answers without grove mcp starting
// again.
func TestMCP_WhileWatching(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), "index.db")
	file := filepath.Join(root, "live.jsonl")
	if err := os.WriteFile(file, []byte(piSession("live-1", 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	w := mustStartWatch(t, db, false, "--root", root, "--debounce", "20ms")
	w.waitFor(t, "the first pass", func() bool { return w.sessions(t)[file] == 50 })
	c := startMCP(t, db, root)

	const appends = 150
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the agent writing its session
		defer wg.Done()
		fh, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer fh.Close()
		for i := 51; i <= 50+appends; i++ {
			line := strings.Replace(piMessage(i), fmt.Sprintf(`"message %d"`, i), fmt.Sprintf(`"zebra%d message %d"`, i, i), 1)
			if _, err := fh.WriteString(line); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	calls, stale := 0, 0
	for running := true; running; calls++ {
		select {
		case <-done:
			running = false
		default:
		}
		tool, args := []string{"search", "path", "messages", "leaves"}[calls%4], map[string]any{"session": "live-1"}
		if tool == "search" {
			args["query"] = "zebra*"
		}
		r, err := c.Call(tool, args)
		if err != nil {
			t.Fatalf("call %d (%s): %v", calls, tool, err)
		}
		if r.IsError {
			var e struct{ Error map[string]any }
			json.Unmarshal(r.StructuredContent, &e)
			if e.Error["code"] != "stale_index" || e.Error["session"] != "live-1" {
				t.Fatalf("call %d (%s) while watching: %s", calls, tool, r.Text())
			}
			stale++
		}
	}
	t.Logf("%d calls while %d entries were appended and indexed; %d found the file changed since indexing", calls, appends, stale)
	if calls < 20 {
		t.Errorf("only %d calls while the appends went on: the test did not overlap them", calls)
	}
	// The watch indexes the last append; grove mcp answers with it.
	want := fmt.Sprintf("m%d", 50+appends)
	deadline := time.Now().Add(watchPatience)
	for {
		r, err := c.Call("path", map[string]any{"session": "live-1"})
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Leaf string
			Path []string
		}
		json.Unmarshal(r.StructuredContent, &p)
		if !r.IsError && p.Leaf == want && len(p.Path) == 50+appends {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("grove mcp never answered the last append: %s\nwatch stderr:\n%s", r.Text(), w.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r, err := c.Call("search", map[string]any{"query": fmt.Sprintf("zebra%d", 50+appends)})
	if err != nil || r.IsError || !strings.Contains(r.Text(), `"id":"`+want+`"`) {
		t.Errorf("search for the last append: %v %s", err, r.Text())
	}
	if code := w.stop(t, os.Interrupt); code != 0 {
		t.Errorf("grove watch exited %d\nstderr:\n%s", code, w.stderr)
	}
}

// grove mcp writes nothing to the index and holds no writer lock: the
// index's files are byte for byte the same after its calls, and grove
// index, a writer, runs beside it without waiting.
func TestMCP_ReadsOnly(t *testing.T) {
	f := mustMCPFixture(t, "pi", "claude")
	sums := func() string {
		var b strings.Builder
		for _, suffix := range []string{"", "-wal"} {
			data, err := os.ReadFile(f.db + suffix)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %x %d\n", suffix, sha256.Sum256(data), len(data))
		}
		return b.String()
	}
	before := sums()
	for _, tool := range []string{"sessions", "workspaces", "leaves", "branches"} {
		if r, err := f.c.Call(tool, map[string]any{}); err != nil || r.IsError {
			t.Fatalf("%s: %v %s", tool, err, r.Text())
		}
	}
	for _, q := range []string{"JWT", "the", "test*"} {
		if r, err := f.c.Call("search", map[string]any{"query": q}); err != nil || r.IsError {
			t.Fatalf("search %s: %v %s", q, err, r.Text())
		}
	}
	if after := sums(); after != before {
		t.Errorf("the index's files changed under grove mcp's calls:\nbefore %safter  %s", before, after)
	}
	cmd := exec.Command(mustGroveBinary(t), "--db", f.db, "index", "--root", f.root)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "another grove is writing") {
		t.Errorf("grove index beside grove mcp: %v\n%s", err, out)
	}
}
