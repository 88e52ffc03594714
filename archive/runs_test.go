package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// genTreeEdges draws n entries: many roots, parents earlier, later
// (cycles), itself or missing, duplicated ids, long chains.
func genTreeEdges(rt *rapid.T, n int) []genEdge {
	var edges []genEdge
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("e%d", i)
		if rapid.IntRange(0, 20).Draw(rt, "dupChance") == 0 {
			id = fmt.Sprintf("e%d", rapid.IntRange(0, n).Draw(rt, "dupOf"))
		}
		var parent *string
		switch k := rapid.IntRange(0, 11).Draw(rt, "parentKind"); {
		case k == 0: // a root
		case k == 1: // any id, earlier or later: cycles and self-parents
			p := fmt.Sprintf("e%d", rapid.IntRange(0, n-1).Draw(rt, "anyParent"))
			parent = &p
		case k == 2:
			p := "missing"
			parent = &p
		case k <= 4: // a branch from an earlier entry
			if i > 0 {
				p := edges[rapid.IntRange(0, i-1).Draw(rt, "earlier")].id
				parent = &p
			}
		default: // the chain goes on
			if i > 0 {
				p := edges[i-1].id
				parent = &p
			}
		}
		edges = append(edges, genEdge{id: id, parent: parent})
	}
	return edges
}

// Runs stay right under appends: a file grown in random splits, each
// refresh an append whose parents are looked up in the index, answers
// PathTo's answer for every entry from the run walk, and its index equals
// a clean build's (run and pos included, through Dump).
func TestPathRuns_AppendsEqualPathTo(t *testing.T) {
	testutil.RapidChecks(t, 100, 1000)
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.Mkdir(root, 0o700)
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	file := filepath.Join(root, "s.jsonl")
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(rt, "n")
		edges := genTreeEdges(rt, n)
		whole := plainFile(edges)
		lines := bytes.SplitAfter(whole, []byte("\n"))
		os.Remove(file)
		appended := 0
		for done := 0; done < n; {
			next := rapid.IntRange(done+1, n).Draw(rt, "cut")
			f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				rt.Fatal(err)
			}
			f.Write(bytes.Join(lines[done:next], nil))
			f.Close()
			_, _, changed, err := a.IndexFile(ctx, file, false)
			if err != nil {
				rt.Fatal(err)
			}
			if done > 0 && changed {
				appended++
			}
			done = next
			s, err := archive.DBOf(a).SessionByPath(ctx, file)
			if err != nil || s == nil {
				rt.Fatalf("session not indexed: %v", err)
			}
			loaded, err := archive.Load(file)
			if err != nil {
				rt.Fatal(err)
			}
			ids := []string{"no-such-entry"}
			for _, e := range loaded.Entries {
				ids = append(ids, e.ID)
			}
			for _, id := range ids {
				if got, want := cteAnswer(ctx, archive.DBOf(a), s.SID, id), pathToAnswer(loaded.Entries, id); got != want {
					rt.Fatalf("after %d of %d lines, entry %q: run walk = %s, PathTo = %s", done, n, id, got, want)
				}
			}
		}
		var got bytes.Buffer
		if err := archive.DBOf(a).Dump(ctx, &got); err != nil {
			rt.Fatal(err)
		}
		want := cleanDump(rt, root, filepath.Join(dir, "clean.db"))
		if strip(got.String()) != strip(want) {
			rt.Fatalf("after appends the index differs from a clean build:\n--- appended\n%s--- clean\n%s", got.String(), want)
		}
	})
}

// strip keeps the dump's entry and diagnostic lines (the session line
// holds when the file was read), active marks included: an append whose
// new leaf joins the old active path on a cycle must mark what a whole
// read marks.
func strip(dump string) string {
	var out []string
	for _, l := range strings.Split(dump, "\n") {
		if strings.HasPrefix(l, "entry ") || strings.HasPrefix(l, "diagnostic ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// An index made before schema 8 has no runs: right after the migration its
// sessions answer paths by the walk over every entry, an append to one
// keeps its new entries without runs too, and the next whole read fills
// them in; the answers are PathTo's throughout.
func TestPathRuns_MigrationFromSchema7(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "v3.jsonl")
	db := filepath.Join(t.TempDir(), "index.db")
	a := mustOpenArchive(t, db)
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	mustSQL(t, db, "DROP INDEX entries_by_run", "ALTER TABLE entries DROP COLUMN pos", "ALTER TABLE entries DROP COLUMN run", "ALTER TABLE sessions DROP COLUMN source", "DROP INDEX sessions_by_workspace_key", "ALTER TABLE sessions DROP COLUMN workspace_key", "ALTER TABLE entries DROP COLUMN kind", "ALTER TABLE entries DROP COLUMN path_kind", "ALTER TABLE sessions DROP COLUMN real_leaves", "ALTER TABLE sessions DROP COLUMN gone", "PRAGMA user_version = 7")

	check := func(when string, wantRuns bool) {
		t.Helper()
		s, err := archive.DBOf(a).SessionByPath(ctx, file)
		if err != nil || s == nil {
			t.Fatalf("%s: session: %v", when, err)
		}
		loaded, err := archive.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range loaded.Entries {
			if got, want := cteAnswer(ctx, archive.DBOf(a), s.SID, e.ID), pathToAnswer(loaded.Entries, e.ID); got != want {
				t.Fatalf("%s, entry %q: Path = %s, PathTo = %s", when, e.ID, got, want)
			}
		}
		var b bytes.Buffer
		if err := archive.DBOf(a).Dump(ctx, &b); err != nil {
			t.Fatal(err)
		}
		if nulls := strings.Count(b.String(), " run=NULL "); wantRuns && nulls != 0 || !wantRuns && nulls != len(loaded.Entries) {
			t.Fatalf("%s: %d entries without runs of %d; want runs %t", when, nulls, len(loaded.Entries), wantRuns)
		}
	}
	a = mustOpenArchive(t, db)
	check("right after the migration", false)
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"type":"message","id":"zz01","parentId":"b7395fc2","timestamp":"2026-01-01T00:09:00.000Z","message":{"role":"user","content":"more"}}`+"\n")
	f.Close()
	if sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil || sum.Appended != 1 {
		t.Fatalf("Index after an append = %+v, %v; want it appended", sum, err)
	}
	check("after an append", false)
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}, Force: true}); err != nil {
		t.Fatal(err)
	}
	check("after a whole read", true)
}
