package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A session whose first user message is one 10 MB line of ordinary ASCII
// words, no base64 (SPEC §2.8: memory within a small multiple of the
// longest line, also for text the search index holds): it indexes within an
// allocation bound, and search finds a phrase in its middle and a word at
// its end, not the same words in the other order; sessions shows the first
// 200 characters. The bound, 3.5× the file, fails the code before:
// it allocated 5× (the line, its search text, a copy of that for the
// full-text index, the decoded message and a one-line copy of it for
// first_message); now 3× (the line, the search text, the decoded message).
// Over 8 MB of text the Go heap's free memory is handed back before SQLite
// takes the text, which this test runs through too.
func TestLongTextLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sessions", "text.jsonl")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("the parser reads each line of the session file and builds a tree of entries with their parents")
	r := rand.New(rand.NewSource(7))
	var text strings.Builder
	for text.Len() < 10<<20 {
		if text.Len() > 5<<20 && !strings.Contains(text.String()[5<<20-64:], "zebra") {
			text.WriteString("zebra quagga ") // once, in the middle
		}
		text.WriteString(words[r.Intn(len(words))])
		text.WriteByte(' ')
	}
	text.WriteString("endmarker")
	msg, _ := json.Marshal(text.String())
	src := `{"type":"session","version":3,"id":"longtext","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/workspace/longtext"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-03-03T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":` + string(msg) + `}],"timestamp":1772524801000}}` + "\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "index.db")
	run := func(args ...string) (string, float64) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code := run(context.Background(), append([]string{"grove", "--db", db}, args...), &stdout, &stderr)
		runtime.ReadMemStats(&after)
		if code != 0 {
			t.Fatalf("grove %s = %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String(), float64(after.TotalAlloc-before.TotalAlloc) / float64(len(src))
	}
	_, alloc := run("index", file)
	t.Logf("index: allocated %.2f× the file", alloc)
	if alloc > 3.5 {
		t.Errorf("index allocated %.2f× the file's %d bytes, want at most 3.5×", alloc, len(src))
	}
	for _, c := range []struct {
		query string
		total int
	}{{`"zebra quagga"`, 1}, {"endmarker", 1}, {`"quagga zebra"`, 0}, {"zebra endmarker", 1}, {"zebra NOT endmarker", 0}} {
		out, _ := run("--json", "search", c.query)
		var res struct{ Total int }
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Total != c.total {
			t.Errorf("search %s: total %d (%v), want %d", c.query, res.Total, err, c.total)
		}
	}
	out, _ := run("--json", "sessions")
	want, _ := json.Marshal(text.String()[:199] + "…")
	if !strings.Contains(out, fmt.Sprintf(`"first_message": %s`, want)) && !strings.Contains(out, fmt.Sprintf(`"first_message":%s`, want)) {
		t.Errorf("sessions: want first_message %s…, got %.600s", want[:40], out)
	}
}
