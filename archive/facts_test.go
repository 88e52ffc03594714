package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// sessionsByID lists the sessions of a by id.
func sessionsByID(tb testing.TB, a *archive.Archive) map[string]archive.Session {
	tb.Helper()
	ss, err := a.Sessions(context.Background(), "")
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]archive.Session{}
	for _, s := range ss {
		out[s.SessionID] = s
	}
	return out
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// An index made with schema 4 has no first messages and modified times by
// the old rule. Opened with this grove it keeps answering from its file
// facts (no stale_index), lists first_message as unknown and modified by
// the new rule as far as entry times tell; the next `grove index` reads
// every file whole once and then answers what a clean build does.
func TestSessions_MigrationFromSchema4(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testutil.MustCopy(t, testutil.Testdata(t, "plain/chapter-tree.jsonl"), dir, "chapter-tree.jsonl")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "v3.jsonl")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v2-branches.jsonl"), dir, "v2.jsonl")
	// Old enough that their stats are trusted (index.RacyWindowMs): the
	// migration itself must make the next run look at them.
	hourAgo := time.Now().Add(-time.Hour)
	for _, f := range []string{"chapter-tree.jsonl", "v3.jsonl", "v2.jsonl"} {
		if err := os.Chtimes(filepath.Join(dir, f), hourAgo, hourAgo); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "index.db")
	a := mustOpenArchive(t, db)
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	clean := sessionsByID(t, a)
	a.Close()
	// What schema 4 held: no first_message or activity_ms, modified the
	// latest entry time, else the file's mtime.
	mustSQL(t, db, "DROP INDEX entries_by_run", "ALTER TABLE entries DROP COLUMN pos", "ALTER TABLE entries DROP COLUMN run",
		"ALTER TABLE sessions DROP COLUMN first_message", "ALTER TABLE sessions DROP COLUMN activity_ms",
		"UPDATE sessions SET modified_ms = coalesce(max_ts_ms, file_mtime_ns / 1000000)", "DROP INDEX entries_by_copy", "ALTER TABLE entries DROP COLUMN copy_crc", "ALTER TABLE entries DROP COLUMN side", "ALTER TABLE sessions DROP COLUMN source", "DROP INDEX sessions_by_workspace_key", "ALTER TABLE sessions DROP COLUMN workspace_key", "ALTER TABLE entries DROP COLUMN kind", "ALTER TABLE entries DROP COLUMN path_kind", "ALTER TABLE sessions DROP COLUMN real_leaves", "ALTER TABLE sessions DROP COLUMN gone", "PRAGMA user_version = 4")

	a = mustOpenArchive(t, db)
	before := sessionsByID(t, a)
	for id, s := range before {
		if s.FirstMessage != nil {
			t.Errorf("%s: first message %q right after the migration, want none (unknown until read)", id, *s.FirstMessage)
		}
	}
	// chapter-tree's last entry is metadata at 00:00:05; its last message 00:00:04.
	if got, want := deref(before["chapter-tree"].ModifiedMs), deref(clean["chapter-tree"].ModifiedMs); got != want {
		t.Errorf("chapter-tree modified right after the migration = %v, want %v (the latest message's entry time)", got, want)
	}
	if _, err := a.Path(ctx, "chapter-tree", ""); err != nil {
		t.Errorf("Path right after the migration: %v, want an answer from the file facts kept", err)
	}

	sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}})
	if err != nil || sum.Indexed != 3 || sum.Appended != 0 {
		t.Fatalf("Index after the migration = %+v, %v; want all 3 files read whole", sum, err)
	}
	after := sessionsByID(t, a)
	for id, c := range clean {
		s := after[id]
		if deref(s.FirstMessage) != deref(c.FirstMessage) || deref(s.ModifiedMs) != deref(c.ModifiedMs) || s.Name != c.Name {
			t.Errorf("%s after re-reading: first %v modified %v name %q; a clean build has %v, %v, %q", id,
				deref(s.FirstMessage), deref(s.ModifiedMs), s.Name, deref(c.FirstMessage), deref(c.ModifiedMs), c.Name)
		}
	}
	if sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil || sum.Unchanged != 3 {
		t.Errorf("a second Index = %+v, %v; want all 3 unchanged", sum, err)
	}
}

// A session read whole into memory (Load, as verify does) is named as the
// index names it: pi's getSessionName, the last session_info trimmed, a
// blank one clearing the name (SPEC §3.2).
func TestLoad_NameIsGetSessionName(t *testing.T) {
	for _, c := range []struct{ last, want string }{
		{`"name":"  Renamed \u3000"`, "Renamed"},
		{`"name":" \t "`, ""},
		{``, ""},
	} {
		dir := t.TempDir()
		sep := ","
		if c.last == "" {
			sep = ""
		}
		path := testutil.MustWriteFile(t, dir, "s.jsonl", []byte(
			`{"type":"session","version":3,"id":"s1","timestamp":"2026-02-01T00:00:00.000Z","cwd":"/w"}`+"\n"+
				`{"type":"session_info","id":"n1","parentId":null,"timestamp":"2026-02-01T00:00:01.000Z","name":"Old"}`+"\n"+
				`{"type":"session_info","id":"n2","parentId":"n1","timestamp":"2026-02-01T00:00:02.000Z"`+sep+c.last+`}`+"\n"))
		s, err := archive.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
		if _, err := a.Index(context.Background(), archive.IndexOptions{Roots: []string{dir}}); err != nil {
			t.Fatal(err)
		}
		if got := sessionsByID(t, a)["s1"].Name; s.Name != c.want || got != c.want {
			t.Errorf("last session_info {%s}: Load names it %q, the index %q; want %q", c.last, s.Name, got, c.want)
		}
	}
}
