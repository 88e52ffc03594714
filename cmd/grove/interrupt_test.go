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

// TestExport_InterruptStopsPromptly is a Ctrl-C during a long `grove export
// --out FILE` (md, html and a jsonl fork): a real process gets SIGINT once
// its temporary file (a fork's: FILE) holds 256 KB of a document of
// several MB, and it must stop within a few entries — the file, watched
// until the process ends, never grows more than 2 MB past what it held at
// the signal — exit 1 saying interrupted, and leave neither FILE nor a
// temporary file (SPEC §2.8). An export that went on to the end before
// looking at the interrupt fails it: its file reaches the whole document
// first.
func TestExport_InterruptStopsPromptly(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"0194c1d0-0000-7000-8000-00000000e5c1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}` + "\n")
	para := strings.Repeat("Some *words* of a `reply` with [a link](https://example.com) and more words. ", 60)
	parent := "null"
	for j := range 2500 {
		id := fmt.Sprintf("%08x", j+1)
		fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"## Turn %d\n\n%s"}]}}`+"\n", id, parent, j, para)
		parent = strconv.Quote(id)
	}
	session := filepath.Join(root, "long.jsonl")
	if err := os.WriteFile(session, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	grove := func(args ...string) *exec.Cmd {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		c := exec.Command(exe, args...)
		c.Args[0] = "grove" // the test binary is grove then (TestMain)
		return c
	}
	db := filepath.Join(dir, "index.db")
	if out, err := grove("--db", db, "index", "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("grove index: %v\n%s", err, out)
	}
	for _, format := range []string{"md", "html", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "long."+format)
			p := grove("--db", db, "export", "--format", format, "--out", out, session)
			var stderr bytes.Buffer
			p.Stderr = &stderr
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- p.Wait() }()
			// tmpSize is the size of the export's temporary file, -1 when
			// there is none.
			tmpSize := func() int64 {
				ents, _ := os.ReadDir(outDir)
				for _, e := range ents {
					// md and html go into a temporary file; a jsonl
					// fork into FILE itself, removed when it fails.
					if strings.HasSuffix(e.Name(), ".tmp") || format == "jsonl" {
						if fi, err := e.Info(); err == nil {
							return fi.Size()
						}
					}
				}
				return -1
			}
			var atSignal, most int64 = -1, -1
			var err error
		watch:
			for {
				select {
				case err = <-done:
					break watch
				default:
				}
				n := tmpSize()
				if atSignal < 0 && n >= 256<<10 {
					atSignal, most = n, n
					if serr := p.Process.Signal(os.Interrupt); serr != nil {
						t.Fatal(serr)
					}
				}
				most = max(most, n)
				time.Sleep(2 * time.Millisecond)
			}
			if atSignal < 0 {
				t.Fatalf("the export ended (%v) before its temporary file held 256 KB: %s", err, stderr.String())
			}
			if err == nil {
				t.Fatalf("the export finished after the interrupt (%d bytes at the signal)", atSignal)
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr %q does not say interrupted", stderr.String())
			}
			if most > atSignal+2<<20 {
				t.Errorf("the temporary file grew from %d to %d bytes after the interrupt: the export did not stop promptly", atSignal, most)
			}
			ents, _ := os.ReadDir(outDir)
			for _, e := range ents {
				t.Errorf("left behind after the interrupt: %s", e.Name())
			}
			t.Logf("%s: %d bytes at the signal, at most %d after", format, atSignal, most)
		})
	}
}

// TestIndex_InterruptedColdIndexHoldsWhatItSays sends SIGINT at random
// moments to the first `grove index` of an empty index (the cold build,
// whose private file keeps its journal in memory to roll a stopped read
// back), over 900 sessions of 10 to 3,000 entries: every round, the index must hold exactly
// the files the message says stay indexed, each whole — no session of a
// file whose read was stopped, listed as ok with no entries — and verify
// finds nothing stale.
func TestIndex_InterruptedColdIndexHoldsWhatItSays(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "builds grove and interrupts eight cold indexes of 900 sessions")
	root := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 900 {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"type":"session","version":3,"id":"0194c1d0-0000-7000-9000-%012d","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`+"\n", i)
		parent := "null"
		n := 10
		if i%30 == 7 {
			n = 3000 // written in several pieces: a stop can fall inside
		}
		for j := range n {
			id := fmt.Sprintf("%04x%04x", i, j)
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"entry %d of file %d"}}`+"\n", id, parent, j, i)
			parent = strconv.Quote(id)
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("s%03d.jsonl", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	said := regexp.MustCompile(`\((\d+) files? indexed in this run\)`)
	for round, delay := range []time.Duration{150, 300, 450, 600, 800, 1000, 1300, 1700} {
		db := filepath.Join(t.TempDir(), "index.db")
		p := exec.Command(mustGroveBinary(t), "--db", db, "index", "--root", root)
		var errb bytes.Buffer
		p.Stderr = &errb
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay * time.Millisecond)
		p.Process.Signal(os.Interrupt)
		if err := p.Wait(); err == nil {
			t.Logf("round %d: grove index finished before the interrupt", round)
			continue
		}
		m := said.FindStringSubmatch(errb.String())
		if m == nil {
			t.Logf("round %d: stopped before any file was indexed: %s", round, strings.TrimSpace(errb.String()))
			continue
		}
		n, _ := strconv.Atoi(m[1])
		out, err := runGrove(t, db, "--json", "sessions")
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Sessions []struct {
				Path, State string
				Entries     int
			}
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		for _, s := range list.Sessions {
			if s.Entries == 0 {
				t.Errorf("round %d (SIGINT after %d ms): %s is listed %s with no entries: the file whose read was stopped", round, delay, s.Path, s.State)
			}
		}
		if n != len(list.Sessions) {
			t.Errorf("round %d (SIGINT after %d ms): the message says %d files stay indexed; the index holds %d sessions", round, delay, n, len(list.Sessions))
		}
		if out, err := runGrove(t, db, "--json", "verify"); err != nil || !strings.Contains(out, `"stale":0`) {
			t.Errorf("round %d: verify after the interrupt: %v\n%.300s", round, err, out)
		}
		t.Logf("round %d: SIGINT after %d ms, %d files indexed", round, delay, n)
	}
}
