package index

import (
	"context"
	"path/filepath"
	"testing"
)

// A cold build's private file has no journal: a read stopped part-way
// leaves its session row (indexed_at_ms 0, state ok, no entries yet) and
// whatever rows it had written. DropUnfinished deletes exactly those, and
// keeps the sessions that committed.
func TestDropUnfinished_KeepsOnlyCommittedSessions(t *testing.T) {
	ctx := context.Background()
	d, err := OpenBuild(ctx, filepath.Join(t.TempDir(), "build.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	b, err := d.BeginBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done, err := b.Replace(ctx, &Session{Path: "/done.jsonl", SessionID: "done", Dialect: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if err := done.AddEntries(ctx, []Entry{{Seq: 0, EntryID: "a", Type: "message", Text: []byte("kept words")}}); err != nil {
		t.Fatal(err)
	}
	if err := done.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := b.Replace(ctx, &Session{Path: "/stopped.jsonl", SessionID: "stopped", Dialect: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddEntries(ctx, []Entry{{Seq: 0, EntryID: "x", Type: "message", Text: []byte("half written")}}); err != nil {
		t.Fatal(err)
	}
	// The read stops here: the writer rolls back to its savepoint, which a
	// journal-less file cannot do, and the batch keeps the files finished.
	w.Rollback()
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	n, err := d.DropUnfinished(ctx)
	if err != nil || n != 1 {
		t.Fatalf("DropUnfinished = %d, %v; want the one stopped session", n, err)
	}
	var rows struct{ S, E int }
	d.db.Get(&rows.S, "SELECT count(*) FROM sessions")
	d.db.Get(&rows.E, "SELECT count(*) FROM entries")
	if rows.S != 1 || rows.E != 1 {
		t.Fatalf("after DropUnfinished: %d sessions, %d entries; want the committed session and its entry", rows.S, rows.E)
	}
	if s, _ := d.SessionByPath(ctx, "/stopped.jsonl"); s != nil {
		t.Fatalf("the stopped session is still there: %+v", s)
	}
}
