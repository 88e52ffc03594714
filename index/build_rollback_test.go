package index

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A read stopped part-way rolls its rows back (to the session's savepoint,
// or the whole batch when a Ctrl-C interrupts a statement). A cold build's
// private file must come out of that whole, however many pages the rolled
// back rows took: more than the page cache holds, so that some were
// written to the file before the rollback: the rolled back sessions are
// gone, the committed ones whole, and quick_check finds nothing. (SQLite
// leaves a ROLLBACK undefined with the journal off,
// https://sqlite.org/pragma.html#pragma_journal_mode.)
func TestBuild_RollbackLeavesTheFileWhole(t *testing.T) {
	ctx := context.Background()
	d, err := OpenBuild(ctx, filepath.Join(t.TempDir(), "build.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	entries := func(prefix string, n int) []Entry {
		es := make([]Entry, n)
		for i := range es {
			es[i] = Entry{Seq: i, EntryID: fmt.Sprintf("%s%06d", prefix, i), Type: "message",
				Text: []byte(strings.Repeat(fmt.Sprintf("%s words %d ", prefix, i), 20))}
		}
		return es
	}
	for round := range 3 {
		b, err := d.BeginBatch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		done, err := b.Replace(ctx, &Session{Path: fmt.Sprintf("/done%d.jsonl", round), SessionID: fmt.Sprint("done", round), Dialect: "plain"})
		if err != nil {
			t.Fatal(err)
		}
		if err := done.AddEntries(ctx, entries("kept", 5000)); err != nil {
			t.Fatal(err)
		}
		if err := done.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		w, err := b.Replace(ctx, &Session{Path: fmt.Sprintf("/stopped%d.jsonl", round), SessionID: fmt.Sprint("stopped", round), Dialect: "plain"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddEntries(ctx, entries("gone", 20000)); err != nil {
			t.Fatal(err)
		}
		w.Rollback()
		if round == 2 {
			b.Rollback() // the whole batch, as an interrupted statement does
		} else if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var check []string
	if err := d.db.Select(&check, "PRAGMA quick_check"); err != nil {
		t.Fatal(err)
	}
	if len(check) != 1 || check[0] != "ok" {
		t.Fatalf("the build file after rollbacks: quick_check says %.500q", check)
	}
	var rows struct{ S, E int }
	d.db.Get(&rows.S, "SELECT count(*) FROM sessions")
	d.db.Get(&rows.E, "SELECT count(*) FROM entries")
	if rows.S != 2 || rows.E != 10000 {
		t.Fatalf("after the rollbacks: %d sessions, %d entries; want the two committed sessions and their 10000 entries", rows.S, rows.E)
	}
	for _, p := range []string{"/stopped0.jsonl", "/stopped1.jsonl", "/done2.jsonl", "/stopped2.jsonl"} {
		if s, _ := d.SessionByPath(ctx, p); s != nil {
			t.Errorf("%s, rolled back, is still there: %+v", p, s)
		}
	}
}
