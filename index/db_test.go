package index

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

func mustOpen(t testing.TB, path string) *DB {
	t.Helper()
	d, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestOpen_MigratesAndRecords(t *testing.T) {
	path := testutil.MustTempDB(t)
	d := mustOpen(t, path)
	var version, appID int
	d.db.Get(&version, "PRAGMA user_version")
	d.db.Get(&appID, "PRAGMA application_id")
	if version != SchemaVersion() || version < 1 || appID != ApplicationID {
		t.Fatalf("user_version %d application_id %#x, want %d and %#x", version, appID, SchemaVersion(), ApplicationID)
	}
	d.Close()
	// Opening again applies nothing and keeps the rows.
	d2 := mustOpen(t, path)
	if _, err := d2.Replace(context.Background(), &Session{Path: "/x.jsonl", SessionID: "x", Dialect: "plain", State: "ok"}, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// A file this grove must not touch is refused and left byte for byte as it
// was (SPEC §6).
func TestOpen_RefusesForeignAndNewer(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.db")
	d := mustOpen(t, newer)
	d.db.MustExec("PRAGMA user_version = 99")
	d.Close()

	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine')"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	garbage := testutil.MustWriteFile(t, dir, "garbage.db", bytes.Repeat([]byte("not a database at all\n"), 300))

	tests := []struct {
		path string
		code errs.Code
		text string
	}{
		{newer, errs.CodeNewerIndex, "newer grove"},
		{foreign, errs.CodeNotIndex, "not a grove index"},
		{garbage, errs.CodeNotIndex, "not a SQLite database"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			before, _ := os.ReadFile(tt.path)
			d, err := Open(context.Background(), tt.path)
			if err == nil {
				d.Close()
				t.Fatalf("Open(%s) succeeded, want %s", tt.path, tt.code)
			}
			if errs.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Open(%s) = %v, want %s containing %q", tt.path, err, tt.code, tt.text)
			}
			after, _ := os.ReadFile(tt.path)
			if !bytes.Equal(before, after) {
				t.Errorf("Open(%s) changed the file", tt.path)
			}
			for _, suffix := range []string{"-wal", "-journal"} {
				if fi, err := os.Stat(tt.path + suffix); err == nil && fi.Size() > 0 {
					t.Errorf("Open(%s) left a non-empty %s", tt.path, suffix)
				}
			}
		})
	}
}

// Indexing a file again replaces its rows: nothing of the old rows stays.
func TestReplace_ReplacesRows(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))
	s := &Session{Path: "/s.jsonl", SessionID: "s", Dialect: "plain", State: "ok"}
	first := []Entry{{Seq: 0, EntryID: "a", Type: "message"}, {Seq: 1, EntryID: "b", ParentID: ptr("a"), Type: "message"}, {Seq: 2, EntryID: "a", ParentID: ptr("b"), Type: "message", Line: 3}}
	if _, err := d.Replace(ctx, s, first, []Diagnostic{{Severity: "error", Code: "bad_line", Line: 9}}, []Label{{TargetID: "a", Label: "x"}}); err != nil {
		t.Fatal(err)
	}
	got, _ := d.SessionByPath(ctx, "/s.jsonl")
	if got.DuplicateID == nil || *got.DuplicateID != "a" || got.State != "damaged" || got.Diagnostics != 2 {
		t.Fatalf("first: duplicate %v state %s diagnostics %d, want a, damaged, 2", got.DuplicateID, got.State, got.Diagnostics)
	}
	second := []Entry{{Seq: 0, EntryID: "c", Type: "message"}}
	if _, err := d.Replace(ctx, &Session{Path: "/s.jsonl", SessionID: "s", Dialect: "plain", State: "ok"}, second, nil, nil); err != nil {
		t.Fatal(err)
	}
	var n struct{ S, E, G, L int }
	d.db.Get(&n.S, "SELECT count(*) FROM sessions")
	d.db.Get(&n.E, "SELECT count(*) FROM entries")
	d.db.Get(&n.G, "SELECT count(*) FROM diagnostics")
	d.db.Get(&n.L, "SELECT count(*) FROM labels")
	if n.S != 1 || n.E != 1 || n.G != 0 || n.L != 0 {
		t.Fatalf("after replace: %d sessions, %d entries, %d diagnostics, %d labels; want 1 1 0 0", n.S, n.E, n.G, n.L)
	}
	got, _ = d.SessionByPath(ctx, "/s.jsonl")
	if got.DuplicateID != nil || got.State != "ok" || got.Leaves != 1 {
		t.Fatalf("second: duplicate %v state %s leaves %d, want none, ok, 1", got.DuplicateID, got.State, got.Leaves)
	}
}

// Batches larger than one statement's bound values go in several statements.
func TestReplace_ManyEntries(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))
	const n = 7000 // 7,000 × 11 values > maxParams
	es := make([]Entry, n)
	for i := range es {
		es[i] = Entry{Seq: i, EntryID: "e" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Type: "message"}
		if i > 0 {
			es[i].ParentID = ptr(es[i-1].EntryID)
		}
	}
	if _, err := d.Replace(ctx, &Session{Path: "/big.jsonl", SessionID: "big", Dialect: "plain", State: "ok", Entries: n}, es, nil, nil); err != nil {
		t.Fatal(err)
	}
	s, _ := d.SessionByPath(ctx, "/big.jsonl")
	path, err := d.Path(ctx, s.SID, es[n-1].EntryID)
	if err != nil || len(path) != n || path[0].EntryID != es[0].EntryID {
		t.Fatalf("Path = %d entries, %v; want %d from the root", len(path), err, n)
	}
}

// The recursive step must look up one entry by id per step, never scan the
// session per step (see Path). This pins the plan, not a time.
func TestPath_QueryPlan(t *testing.T) {
	joined := queryPlan(t, pathQuery, 1, "x", 10)
	scanW := strings.Index(joined, "SCAN w")
	search := strings.Index(joined, "SEARCH p USING INDEX entries_by_id (sid=? AND entry_id=?)")
	if scanW < 0 || search < 0 || search < scanW {
		t.Fatalf("recursive step plan = %s; want SCAN w, then SEARCH p by (sid, entry_id)", joined)
	}
}

// Every duplicated id gets a diagnostic on the line of its second entry,
// naming all its lines, whether the file is read whole or an append adds
// a line to an id already duplicated or duplicates another (SPEC §4 rule
// 1, §6); Diagnostics gives each its id and lines, and Path fails on the
// first id used again, with all of its lines.
func TestDuplicates_EveryID(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))
	mk := func(seq int, id string) Entry {
		return Entry{Seq: seq, EntryID: id, Type: "message", Line: seq + 1, Offset: int64(seq * 100)}
	}
	s := &Session{Path: "/d.jsonl", SessionID: "d", Dialect: "plain", State: "ok"}
	// ids by line: a b b a c b
	sid, err := d.Replace(ctx, s, []Entry{mk(0, "a"), mk(1, "b"), mk(2, "b"), mk(3, "a"), mk(4, "c"), mk(5, "b")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string, want string) {
		t.Helper()
		ds, err := d.Diagnostics(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, g := range ds {
			got = append(got, fmt.Sprintf("%d:%s:%v:%q", g.Line, g.ID, g.Lines, g.Message))
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%s: Diagnostics =\n%s\nwant\n%s", when, strings.Join(got, "\n"), want)
		}
	}
	msg := func(id, lines string) string {
		return fmt.Sprintf("%q", `entry id "`+id+`" is used by more than one entry (lines `+lines+`); every path in this session is ambiguous`)
	}
	check("replace", "3:b:[2 3 6]:"+msg("b", "2, 3, 6")+"\n4:a:[1 4]:"+msg("a", "1, 4"))

	// Append: a third a, a second c, and a new id d.
	w, err := d.BeginAppend(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddEntries(ctx, []Entry{mk(6, "a"), mk(7, "c"), mk(8, "d")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	check("append", "3:b:[2 3 6]:"+msg("b", "2, 3, 6")+"\n4:a:[1 4 7]:"+msg("a", "1, 4, 7")+"\n8:c:[5 8]:"+msg("c", "5, 8"))

	got, _ := d.SessionByPath(ctx, "/d.jsonl")
	if got.State != "damaged" || got.Diagnostics != 3 || got.DuplicateID == nil || *got.DuplicateID != "b" {
		t.Errorf("session = state %s, %d diagnostics, duplicate %v; want damaged, 3, b", got.State, got.Diagnostics, got.DuplicateID)
	}
	_, err = d.Path(ctx, sid, "d")
	if e, ok := err.(*errs.Error); !ok || e.Code != errs.CodeDuplicateID || e.ID != "b" || fmt.Sprint(e.Lines) != "[2 3 6]" || !strings.Contains(e.Message, "lines 2, 3, 6") {
		t.Errorf("Path = %v, want duplicate_id b on lines [2 3 6]", err)
	}
}

// The run walk steps by primary key and entries_by_id and reads each run's
// entries by an entries_by_run range, never a scan of the session (see
// runPathQuery). This pins the plan, not a time.
func TestRunPath_QueryPlan(t *testing.T) {
	joined := queryPlan(t, runPathQuery, 1, 0, 10, 10)
	for _, want := range []string{"SCAN up | SEARCH p USING INDEX entries_by_id (sid=? AND entry_id=?)", "SEARCH h USING PRIMARY KEY (sid=? AND seq=?)",
		"SEARCH e USING INDEX entries_by_run (sid=? AND run=? AND pos<?)"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("run walk plan = %s; want %s", joined, want)
		}
	}
}

// queryPlan is SQLite's plan for q with args on a new index, its steps
// joined by " | ".
func queryPlan(t *testing.T, q string, args ...any) string {
	t.Helper()
	d := mustOpen(t, testutil.MustTempDB(t))
	rows, err := d.db.Queryx("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		rows.Scan(&id, &parent, &unused, &detail)
		plan = append(plan, detail)
	}
	return strings.Join(plan, " | ")
}

// The named Claude sessions every search looks at are found by the index
// sessions_named, not by reading every session row. This pins the plan.
func TestSessions_NamedQueryPlan(t *testing.T) {
	q, args := sessionsQuery(SessionFilter{Dialect: "claude", Named: true})
	if plan := queryPlan(t, q, args...); !strings.Contains(plan, "USING INDEX sessions_named") {
		t.Fatalf("plan of the named sessions: %s; want it to use sessions_named", plan)
	}
}
