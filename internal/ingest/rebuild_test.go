package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// grove rebuild (SPEC §6, docs/indexing.md "Crashes"): the new index equals a clean
// index of the same files; a reader that had the old index open sees the
// new one afterwards without reopening; the half-built file is gone; an
// interrupted rebuild leaves the old index as it was.
func TestArchive_Rebuild(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), root, "a.jsonl")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v2-branches.jsonl"), root, "b.jsonl")
	db := filepath.Join(dir, "index.db")
	a := mustOpen(t, db)
	opts := ingest.IndexOptions{Roots: []string{root}}
	if _, err := a.Index(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if err := a.Remember(ctx, opts); err != nil {
		t.Fatal(err)
	}
	reader := mustOpen(t, db)
	if ss, _ := sessionsOf(ctx, reader); len(ss) != 2 {
		t.Fatalf("reader sees %d sessions before, want 2", len(ss))
	}
	// A file the old index does not know yet: only the rebuild reads it.
	testutil.MustCopy(t, testutil.Testdata(t, "plain/chapter-tree.jsonl"), root, "c.jsonl")
	roots, files, err := a.Sources(ctx)
	if err != nil || len(roots) != 1 || roots[0] != root || len(files) != 0 {
		t.Fatalf("Sources = %v %v %v, want [%s]", roots, files, err, root)
	}
	sum, err := ingest.Rebuild(ctx, db, ingest.RebuildOptions{Roots: roots, Files: files})
	if err != nil || sum.Indexed != 3 {
		t.Fatalf("Rebuild = %+v, %v; want 3 files indexed", sum, err)
	}
	if ss, err := sessionsOf(ctx, reader); err != nil || len(ss) != 3 {
		t.Fatalf("reader sees %d sessions after the rebuild (%v), want 3", len(ss), err)
	}
	clean := mustOpen(t, filepath.Join(dir, "clean.db"))
	if _, err := clean.Index(ctx, opts); err != nil {
		t.Fatal(err)
	}
	clean.Remember(ctx, opts)
	if got, want := mustDump(t, a), mustDump(t, clean); got != want {
		t.Fatalf("the rebuilt index differs from a clean build:\n%s", testutil.FirstDiff(got, want))
	}
	if _, err := os.Stat(ingest.RebuildPath(db)); !os.IsNotExist(err) {
		t.Fatalf("the half-built index is still there: %v", err)
	}
	// A root that cannot be read, or no session file at all: the old index
	// is kept, and the bad root is not remembered.
	kept := mustDump(t, a)
	if _, err := ingest.Rebuild(ctx, db, ingest.RebuildOptions{Roots: []string{filepath.Join(dir, "typo")}}); err == nil {
		t.Fatal("Rebuild of a root that does not exist succeeded")
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := ingest.Rebuild(ctx, db, ingest.RebuildOptions{Roots: []string{empty}}); err == nil {
		t.Fatal("Rebuild of a root without session files replaced an index of 3 sessions")
	}
	if after := mustDump(t, a); after != kept {
		t.Fatalf("a failed rebuild changed the index:\n%s", testutil.FirstDiff(after, kept))
	}
	// A rebuild killed half-way leaves its files; the next grove index,
	// holding the lock, removes them.
	os.WriteFile(ingest.RebuildPath(db), []byte("half"), 0o644)
	os.WriteFile(ingest.RebuildPath(db)+"-wal", []byte("half"), 0o644)
	if _, err := a.Index(ctx, opts); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ingest.RebuildPath(db), ingest.RebuildPath(db) + "-wal"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s is still there after grove index: %v", f, err)
		}
	}
	// Interrupted: the old index stays as it was.
	before := mustDump(t, a)
	os.Remove(filepath.Join(root, "a.jsonl"))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ingest.Rebuild(cctx, db, ingest.RebuildOptions{Roots: roots}); err == nil {
		t.Fatal("Rebuild with an ended context succeeded")
	}
	if after := mustDump(t, a); after != before {
		t.Fatalf("an interrupted rebuild changed the index:\n%s", testutil.FirstDiff(after, before))
	}
}
