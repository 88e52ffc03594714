package index

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// storeForDump stores, in the order of paths, sessions whose entries have
// the same times and words, each with a diagnostic and a label, and
// remembers a root.
func storeForDump(t *testing.T, d *DB, paths ...string) {
	t.Helper()
	ctx := context.Background()
	for _, p := range paths {
		var entries []Entry
		for i := 0; i < 3; i++ {
			ts := int64(1_767_225_600_000 + i*1000)
			var parent *string
			if i > 0 {
				parent = new(string)
				*parent = fmt.Sprintf("e%d", i-1)
			}
			role := "user"
			entries = append(entries, Entry{Seq: i, EntryID: fmt.Sprintf("e%d", i), ParentID: parent, Type: "message", Role: &role, TsMs: &ts,
				Line: i + 1, Offset: int64(i * 100), Length: 99, CRC: uint32(i + 7), Active: true, Text: []byte("alpha beta 索引")})
		}
		leaf := "e2"
		s := &Session{Path: p, SessionID: filepath.Base(p), Dialect: "plain", State: "needs-repair", Entries: 3, Leaves: 1, Lines: 4, ActiveLeaf: &leaf}
		diags := []Diagnostic{{Severity: "error", Code: "bad_json", Line: 4, Offset: 300, Message: "line 4 is not JSON"}}
		if _, err := d.Replace(ctx, s, entries, diags, []Label{{TargetID: "e1", Label: "checkpoint"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.AddSources(ctx, []Source{{Kind: "root", Path: "/w"}}); err != nil {
		t.Fatal(err)
	}
}

func mustDump(t *testing.T, d *DB) string {
	t.Helper()
	var b bytes.Buffer
	if err := d.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustDumpFile(t *testing.T, path string, omit ...string) string {
	t.Helper()
	var b bytes.Buffer
	if err := DumpFile(context.Background(), path, &b, DumpOptions{Omit: omit}); err != nil {
		t.Fatalf("DumpFile(%s): %v", path, err)
	}
	return b.String()
}

// Two indexes of the same sessions stored in opposite orders (so with
// other row ids and doc numbers) dump equal, and DB.Dump and DumpFile
// write the same dump. Sessions /w/x and /w/y have entries of the same
// times and words: their doc numbers are in the order they were stored,
// and their tokens must still come in path order.
func TestDump_SameWhateverTheOrder(t *testing.T) {
	a, b := testutil.MustTempDB(t), testutil.MustTempDB(t)
	da, db := mustOpen(t, a), mustOpen(t, b)
	storeForDump(t, da, "/w/x.jsonl", "/w/y.jsonl", "/w/z.jsonl")
	storeForDump(t, db, "/w/z.jsonl", "/w/y.jsonl", "/w/x.jsonl")
	got, want := mustDump(t, db), mustDump(t, da)
	if got != want {
		t.Fatalf("stored in two orders:\n%s", testutil.FirstDiff(got, want))
	}
	if f := mustDumpFile(t, b); f != got {
		t.Errorf("DumpFile and DB.Dump differ:\n%s", testutil.FirstDiff(f, got))
	}
	for _, want := range []string{
		"session path=\"/w/x.jsonl\" session_id=\"x.jsonl\"",
		"entry \"/w/x.jsonl\" seq=0 entry_id=\"e0\" parent_id=NULL",
		"diagnostic \"/w/y.jsonl\" severity=\"error\" code=\"bad_json\" line=4 offset=300",
		"label \"/w/z.jsonl\" target_id=\"e1\" label=\"checkpoint\"",
		"source kind=\"root\" path=\"/w\"",
		"token \"alpha\" \"/w/x.jsonl\" 0 text 0\ntoken \"alpha\" \"/w/x.jsonl\" 1 text 0\ntoken \"alpha\" \"/w/x.jsonl\" 2 text 0\ntoken \"alpha\" \"/w/y.jsonl\" 0 text 0\n",
		"token \"索\" \"/w/z.jsonl\" 2 text 2\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the dump has no %q:\n%s", want, got)
		}
	}
	for _, leftOut := range []string{"sid=", "indexed_at_ms=", "stat_key=", " doc=", "counter", "seq=0 severity"} {
		if strings.Contains(got, leftOut) {
			t.Errorf("the dump holds %q, which depends on how the index was built", leftOut)
		}
	}
}

// Every column of every table is in the dump but those that depend on
// how the index was built: a change to any other column of every row
// changes the dump; a change to one left out (or named in Omit) does not.
// The dump is read from the schema, so a column a later schema adds is in
// it too.
func TestDump_EveryColumn(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "index.db")
	d := mustOpen(t, file)
	storeForDump(t, d, "/w/x.jsonl", "/w/y.jsonl")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	raw := func(path string) *sql.DB {
		r, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	later := raw(file)
	if _, err := later.Exec("ALTER TABLE sessions ADD COLUMN later TEXT NOT NULL DEFAULT 'v'"); err != nil {
		t.Fatal(err)
	}
	later.Close() // the last connection: the WAL goes into the file
	base := mustDumpFile(t, file)
	if !strings.Contains(base, ` later="v"`) {
		t.Errorf("a column the schema added is not dumped:\n%s", base)
	}
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	leftOut := map[string]bool{"sessions.indexed_at_ms": true, "sessions.stat_key": true, "diagnostics.seq": true, "counters.value": true, "counters.name": true}
	var cols []struct{ table, column string }
	for _, table := range []string{"sessions", "entries", "diagnostics", "labels", "sources", "counters"} {
		rows, err := raw(file).QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			if c != "sid" { // the key every line names by path
				cols = append(cols, struct{ table, column string }{table, c})
			}
		}
		rows.Close()
	}
	if len(cols) < 40 {
		t.Fatalf("%d columns read from the schema", len(cols))
	}
	for i, c := range cols {
		p := filepath.Join(dir, fmt.Sprintf("changed-%d.db", i))
		if err := os.WriteFile(p, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		q := fmt.Sprintf(`UPDATE %s SET "%s" = CASE typeof("%[2]s") WHEN 'integer' THEN "%[2]s" + 1000000 WHEN 'text' THEN "%[2]s" || '~' WHEN 'null' THEN 7 ELSE x'00' END`, c.table, c.column)
		if _, err := raw(p).Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		name := c.table + "." + c.column
		got := mustDumpFile(t, p)
		if changed := got != base; changed == leftOut[name] {
			t.Errorf("%s changed in every row: dump changed %v, want %v", name, changed, !leftOut[name])
		}
		// A session's path and an entry's seq and doc also name rows
		// of other tables and tokens: Omit leaves out the column only.
		if !leftOut[name] && name != "sessions.path" && name != "entries.seq" && name != "entries.doc" {
			if omitted := mustDumpFile(t, p, name); omitted != mustDumpFile(t, file, name) {
				t.Errorf("%s changed, and left out with Omit: the dumps differ:\n%s", name, testutil.FirstDiff(omitted, mustDumpFile(t, file, name)))
			}
		}
	}
	// A token under no entry's doc number.
	p := filepath.Join(dir, "stray.db")
	if err := os.WriteFile(p, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := raw(p).Exec(`INSERT INTO entry_text(rowid, text) VALUES ((SELECT max(doc) + 1 FROM entries), 'stray')`); err != nil {
		t.Fatal(err)
	}
	if got := mustDumpFile(t, p); !strings.Contains(got, `token "stray" "orphan-doc" `) {
		t.Errorf("a token under no entry is not listed as an orphan:\n%s", got)
	}
	if got := mustDumpFile(t, p, "token.*"); strings.Contains(got, "token ") {
		t.Errorf("Omit token.* still dumps tokens")
	}
}

// DumpFile reads the file without changing it, and refuses what it
// cannot dump with an error that says so.
func TestDumpFile_ReadsOnly(t *testing.T) {
	file := testutil.MustTempDB(t)
	d := mustOpen(t, file)
	storeForDump(t, d, "/w/x.jsonl")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(file)
	mustDumpFile(t, file)
	after, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(file); !bytes.Equal(before, after) || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("DumpFile changed %s", file)
	}
	var out bytes.Buffer
	if err := DumpFile(context.Background(), "postgres://localhost/grove", &out, DumpOptions{}); !errors.Is(err, ErrDumpServer) {
		t.Errorf("DumpFile(a PostgreSQL URL) = %v, want ErrDumpServer", err)
	}
	if err := DumpFile(context.Background(), filepath.Join(t.TempDir(), "none.db"), &out, DumpOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("DumpFile(a missing file) = %v, want not exist", err)
	}
	text := testutil.MustWriteFile(t, t.TempDir(), "notes.db", []byte(strings.Repeat("not a database\n", 100)))
	if err := DumpFile(context.Background(), text, &out, DumpOptions{}); err == nil || !strings.Contains(err.Error(), text) {
		t.Errorf("DumpFile(a text file) = %v, want an error naming it", err)
	}
}
