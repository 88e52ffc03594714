package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// halfIndex indexes root into a new index in dir and cuts the index file
// to half its size: damaged at open, with its .sources copy beside it.
func halfIndex(t *testing.T, dir, root string) string {
	t.Helper()
	ctx := context.Background()
	dbPath := filepath.Join(dir, "index.db")
	a, err := ingest.OpenForWrite(ctx, dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	fi, err := os.Stat(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(dbPath, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	return dbPath
}

func demoSessions(t *testing.T, dir string) string {
	t.Helper()
	root := filepath.Join(dir, "my-sessions")
	for _, f := range []string{"pi/v2-branches.jsonl", "pi/v3-tree.jsonl"} {
		testutil.MustCopy(t, testutil.Testdata(t, f), root, filepath.Base(f))
	}
	return root
}

// A damaged index set aside keeps what it remembered: indexing something
// else into the new one adds to the roots (docs/indexing.md "grove rebuild"), and a
// rebuild reads the root the user named, not only what came after.
func TestIndex_DamagedIndexKeepsItsRoots(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := demoSessions(t, dir)
	dbPath := halfIndex(t, dir, root)
	other := testutil.MustCopy(t, testutil.Testdata(t, "plain/chapter-tree.jsonl"), filepath.Join(dir, "elsewhere"), "one.jsonl")

	var warned []string
	a, err := ingest.OpenForWrite(ctx, dbPath, func(m string) { warned = append(warned, m) })
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 {
		t.Fatalf("OpenForWrite on a cut index warned %q, want one line about setting it aside", warned)
	}
	if _, err := a.Index(ctx, ingest.IndexOptions{Files: []string{other}}); err != nil {
		t.Fatal(err)
	}
	roots, files, err := a.Sources(ctx)
	if err != nil || !slices.Contains(roots, root) || !slices.Contains(files, other) {
		t.Fatalf("Sources = %v %v %v, want the damaged index's root %s and the new file %s", roots, files, err, root, other)
	}
	a.Close()
	sum, err := ingest.Rebuild(ctx, dbPath, ingest.RebuildOptions{})
	if err != nil || sum.Indexed != 3 {
		t.Fatalf("Rebuild = %+v, %v; want the root's 2 sessions and the file", sum, err)
	}
}

// Once the damaged index is set aside there is no old index to keep: a
// rebuild that meets a file it cannot read swaps in what it could read and
// names the file in Failed, instead of leaving the user an empty index.
func TestRebuild_AfterDamageKeepsWhatItCouldRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := demoSessions(t, dir)
	dbPath := halfIndex(t, dir, root)
	if err := os.Symlink(filepath.Join(dir, "gone.jsonl"), filepath.Join(root, "dangling.jsonl")); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.Rebuild(ctx, dbPath, ingest.RebuildOptions{})
	if err != nil {
		t.Fatalf("Rebuild after damage = %v, want the readable sessions swapped in", err)
	}
	if sum.Indexed != 2 || len(sum.Failed) != 1 || sum.Failed[0].Path != filepath.Join(root, "dangling.jsonl") {
		t.Fatalf("Rebuild = %+v; want 2 indexed and the dangling link in Failed", sum)
	}
	a, err := ingest.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n, err := a.DB().CountSessions(ctx); err != nil || n != 2 {
		t.Fatalf("the rebuilt index holds %d sessions (%v), want 2", n, err)
	}

	// A healthy index is still kept whole when a file cannot be read.
	if _, err := ingest.Rebuild(ctx, dbPath, ingest.RebuildOptions{}); err == nil {
		t.Fatal("Rebuild of a healthy index with an unreadable file replaced it")
	}
}

// A file that could not be read is not remembered: a rebuild would drop
// it without a word, or (a directory named as a file) fail on it for ever.
func TestRemember_SkipsFilesThatAreNotThere(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := ingest.OpenForWrite(ctx, filepath.Join(dir, "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	typo := filepath.Join(dir, "typo.jsonl")
	folder := filepath.Join(dir, "a-folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Index(ctx, ingest.IndexOptions{Files: []string{typo, folder}}); err != nil {
		t.Fatal(err)
	}
	if _, files, err := a.Sources(ctx); err != nil || len(files) != 0 {
		t.Fatalf("Sources files = %v (%v), want none", files, err)
	}
}

// Ctrl-C after some files were committed keeps them and where they came
// from, so that the next rebuild reads the same root.
func TestIndex_InterruptedRemembersItsRoots(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	root := demoSessions(t, dir)
	a, err := ingest.OpenForWrite(ctx, filepath.Join(dir, "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}, Progress: func(p ingest.Progress) {
		if p.Files == 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || sum.Indexed != 1 {
		t.Fatalf("Index = %+v, %v; want 1 file indexed and context.Canceled", sum, err)
	}
	if roots, _, err := a.Sources(context.Background()); err != nil || !slices.Equal(roots, []string{root}) {
		t.Fatalf("Sources = %v (%v), want [%s]", roots, err, root)
	}
}
