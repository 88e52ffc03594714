package index

import (
	"context"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

func countSessions(t *testing.T, d *DB) int {
	t.Helper()
	n, err := d.CountSessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func chainEntries(ids ...string) []Entry {
	var out []Entry
	for i, id := range ids {
		e := Entry{EntryID: id, Type: "message", Line: i + 1, Offset: int64(i * 10), Length: 9, Text: []byte("word " + id)}
		if i > 0 {
			p := ids[i-1]
			e.ParentID = &p
		}
		out = append(out, e)
	}
	return out
}

// A batch holds several files; a file that fails is rolled back alone
// (its savepoint), unless it is the batch's first, whose rollback is the
// whole transaction's (Batch.Dead) — with nothing else in it to lose.
func TestBatch_FailedFileIsRolledBackAlone(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))

	b, err := d.BeginBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Replace(ctx, &Session{Path: "/first.jsonl", SessionID: "first", Dialect: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	w.AddEntries(ctx, chainEntries("a"))
	w.Rollback() // the first file fails
	if !b.Dead() {
		t.Fatal("the batch's first writer rolled back, but the batch is not Dead")
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("Commit of a dead batch: %v", err)
	}
	if n := countSessions(t, d); n != 0 {
		t.Fatalf("%d sessions after the only file failed, want 0", n)
	}

	b, _ = d.BeginBatch(ctx)
	w, _ = b.Replace(ctx, &Session{Path: "/ok.jsonl", SessionID: "ok", Dialect: "plain"})
	if err := w.AddEntries(ctx, chainEntries("a", "b")); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	w, _ = b.Replace(ctx, &Session{Path: "/bad.jsonl", SessionID: "bad", Dialect: "plain"})
	w.AddEntries(ctx, chainEntries("x", "y", "z"))
	w.Rollback() // the second file fails: only its rows go
	if b.Dead() {
		t.Fatal("a later writer's rollback killed the batch")
	}
	w, _ = b.Replace(ctx, &Session{Path: "/third.jsonl", SessionID: "third", Dialect: "plain"})
	w.AddEntries(ctx, chainEntries("c"))
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := countSessions(t, d); n != 2 {
		t.Fatalf("%d sessions, want 2 (ok and third)", n)
	}
	if s, _ := d.SessionByPath(ctx, "/bad.jsonl"); s != nil {
		t.Fatal("the failed file's session was committed")
	}
	var orphans int
	d.db.Get(&orphans, "SELECT count(*) FROM entries WHERE sid NOT IN (SELECT sid FROM sessions)")
	if orphans != 0 {
		t.Fatalf("%d entry rows of no session", orphans)
	}
	s, _ := d.SessionByPath(ctx, "/ok.jsonl")
	if s == nil || s.Entries != 2 || s.Leaves != 1 || *s.ActiveLeaf != "b" {
		t.Fatalf("ok.jsonl = %+v, want 2 entries, 1 leaf, active b", s)
	}
}
