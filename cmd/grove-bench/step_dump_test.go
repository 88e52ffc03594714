package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/corpusgen"
)

// coldIndex indexes root into a new index at db, in process.
func coldIndexOf(t *testing.T, root, db string) {
	t.Helper()
	a, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Index(context.Background(), archive.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// Indexes of the same files built in another order (so with other doc
// numbers) dump equal: the files of the second half of the manifest
// first, then the whole root. Two plain sessions x and y whose entries
// have the same times and words get their doc numbers in the order they
// are indexed (x's below y's in a, above in b): their tokens must still
// dump in path order. Only the remembered sources differ (the files named
// first are remembered), so they are left out.
func TestCompareIndexes_OrderOfIndexing(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "corpus")
	o := corpusgen.DefaultOptions()
	o.Size = 300_000
	m, err := corpusgen.Generate(context.Background(), root, o)
	if err != nil {
		t.Fatal(err)
	}
	same := `{"id":"s1","parentId":null,"timestamp":1767225600000,"type":"message","message":{"role":"user","content":"alpha beta gamma"}}` + "\n" +
		`{"id":"s2","parentId":"s1","timestamp":1767225600000,"type":"message","message":{"role":"user","content":"alpha beta"}}` + "\n"
	for _, n := range []string{"x.jsonl", "y.jsonl"} {
		if err := os.WriteFile(filepath.Join(root, n), []byte(same), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	coldIndexOf(t, root, a)
	arc, err := archive.Open(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(root, "y.jsonl")}
	for _, f := range m.Files[len(m.Files)/2:] {
		files = append(files, filepath.Join(root, filepath.FromSlash(f.Path)))
	}
	for _, opts := range []archive.IndexOptions{{Files: files}, {Roots: []string{root}}} {
		if _, err := arc.Index(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
	}
	if err := arc.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := compareIndexes(context.Background(), a, b, []string{"sources.kind", "sources.path"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Equal || d.Lines < 1000 {
		t.Errorf("indexes built in two orders: %v", d)
	}
}

// Two cold indexes of the same generated files dump equal, with every
// table in; a changed entry row, label or token makes them differ, and
// --omit of the changed column makes them equal again.
func TestCompareIndexes_TwoColdIndexes(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "corpus")
	o := corpusgen.DefaultOptions()
	o.Size, o.DamageRate = 400_000, 0.5
	if _, err := corpusgen.Generate(context.Background(), root, o); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	coldIndexOf(t, root, a)
	coldIndexOf(t, root, b)
	compare := func(omit ...string) dumpDiff {
		t.Helper()
		d, err := compareIndexes(context.Background(), a, b, omit)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := compare(); !d.Equal || d.Lines < 1000 {
		t.Fatalf("two cold indexes of the same files: %v", d)
	}
	var buf bytes.Buffer
	if err := index.DumpFile(context.Background(), a, &buf, index.DumpOptions{}); err != nil {
		t.Fatal(err)
	}
	text := append([]byte("\n"), buf.Bytes()...)
	for _, want := range []string{"\nsession path=", "\nentry \"" + root, "\ndiagnostic \"" + root, "\nsource ", "\ntoken \"", "\" \"" + root} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("the dump has no line starting %q", want[1:])
		}
	}
	for _, leftOut := range []string{"indexed_at_ms=", "stat_key=", "sid=", " doc=", "counters"} {
		if bytes.Contains(text, []byte(leftOut)) {
			t.Errorf("the dump holds %q, which depends on how the index was built", leftOut)
		}
	}
	raw, err := sql.Open("sqlite", b)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`UPDATE entries SET length = length + 1 WHERE seq = 3 AND sid = (SELECT max(sid) FROM sessions)`)
	d := compare()
	if d.Equal || d.Difference != 1 || !strings.HasPrefix(d.A, "entry ") || !strings.Contains(d.B, " seq=3 ") {
		t.Fatalf("a changed entry row: %v", d)
	}
	if d := compare("entries.length"); !d.Equal {
		t.Errorf("--omit entries.length: %v", d)
	}
	exec(`UPDATE entries SET length = length - 1 WHERE seq = 3 AND sid = (SELECT max(sid) FROM sessions)`)
	// A token under another entry's doc number.
	exec(`INSERT INTO entry_text(rowid, text) VALUES ((SELECT max(doc) + 1 FROM entries), 'stray')`)
	if d := compare(); d.Equal || !strings.Contains(d.B, `"orphan-doc"`) || !strings.Contains(d.B, `"stray"`) {
		t.Errorf("a token under no entry: %v", d)
	}
}

// The dump subcommand: one file to stdout, two compared (exit 1 when
// they differ).
func TestDumpCommand(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "corpus")
	o := corpusgen.DefaultOptions()
	o.Size = 100_000
	if _, err := corpusgen.Generate(context.Background(), root, o); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	coldIndexOf(t, root, a)
	coldIndexOf(t, root, b)
	run := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := newApp(&out, &errb).RunContext(context.Background(), append([]string{"grove-bench", "dump"}, args...))
		return out.String(), err
	}
	if out, err := run(a); err != nil || !strings.HasPrefix(out, "diagnostic ") && !strings.HasPrefix(out, "entry ") {
		t.Errorf("dump a.db: %v, %.200q", err, out)
	}
	if out, err := run(a, b); err != nil || !strings.HasPrefix(out, "equal, ") {
		t.Errorf("dump a.db b.db: %v, %q", err, out)
	}
	raw, err := sql.Open("sqlite", b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE sessions SET name = 'renamed' WHERE sid = (SELECT min(sid) FROM sessions)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if out, err := run(a, b); !errors.Is(err, errDumpsDiffer) || !strings.Contains(out, `name="renamed"`) {
		t.Errorf("dump of a renamed session: %v, %q", err, out)
	}
	var u usageError
	if _, err := run(); !errors.As(err, &u) {
		t.Errorf("dump with no file: %v, want a usage error", err)
	}
}
