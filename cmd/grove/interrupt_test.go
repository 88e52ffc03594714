package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/testutil"
)

// TestIndex_InterruptedSaysWhatStays is a Ctrl-C early in `grove index`: a
// real process gets SIGINT while it reads 40 sessions of about 1 MB (files
// commit in batches of up to 8 MB), and its interrupted message must say
// how many files stay indexed — exactly the sessions the index then holds —
// not that every file finished before stays.
func TestIndex_InterruptedSaysWhatStays(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "builds grove and indexes 40 MB")
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("word ", 500)
	for i := range 40 {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"type":"session","version":3,"id":"0194c1d0-0000-7000-8000-%012d","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`+"\n", i)
		parent := "null"
		for j := range 400 {
			id := fmt.Sprintf("%04x%04x", i, j)
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"%d %s"}}`+"\n", id, parent, j, text)
			parent = strconv.Quote(id)
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("s%03d.jsonl", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dir, "index.db")
	p := exec.Command(mustGroveBinary(t), "--db", db, "--json", "index", "--root", root)
	var out bytes.Buffer
	p.Stdout = &out
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGINT once a batch is committed (a reader sees a session), so the
	// message usually has something to count; whatever the moment, it
	// must be true.
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if o, err := exec.Command(mustGroveBinary(t), "--db", db, "--json", "sessions").Output(); err == nil && bytes.Contains(o, []byte(`"id"`)) {
			break
		}
	}
	p.Process.Signal(os.Interrupt)
	if err := p.Wait(); err == nil {
		t.Skipf("grove index finished before the interrupt: %s", out.String())
	}
	var doc struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not one JSON error: %v\n%s", err, out.String())
	}
	if doc.Error.Code != "interrupted" {
		t.Fatalf("code %q, want interrupted: %s", doc.Error.Code, out.String())
	}
	m := regexp.MustCompile(`every batch committed before stays indexed \((\d+) files? indexed in this run\)`).FindStringSubmatch(doc.Error.Message)
	if m == nil {
		t.Fatalf("message %q does not say what stays indexed", doc.Error.Message)
	}
	said, _ := strconv.Atoi(m[1])
	sessions, err := runGrove(t, db, "--json", "sessions")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Sessions []json.RawMessage }
	if err := json.Unmarshal([]byte(sessions), &list); err != nil {
		t.Fatal(err)
	}
	if said != len(list.Sessions) {
		t.Errorf("the message says %d files stay indexed; the index holds %d sessions", said, len(list.Sessions))
	}
	t.Logf("interrupted after %d of 40 files: %s", said, doc.Error.Message)
}
