package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// One file is one session (SPEC §3.3): a row an older grove stored under a
// symlink's name leaves the index once the file is indexed under its real
// path, and a hard link to an indexed file adds no session.
func TestIndex_OneFileOneSession(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	real := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), root, "real/a.jsonl")
	link := filepath.Join(root, "link.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	a := mustOpen(t, filepath.Join(dir, "index.db"))
	if _, _, _, err := a.IndexFile(ctx, link, false); err != nil { // as an older grove did
		t.Fatal(err)
	}
	sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
	if err != nil || sum.Files != 1 || sum.Removed != 1 {
		t.Fatalf("Index = %+v, %v; want 1 file and the symlink's row removed", sum, err)
	}
	if err := os.Link(real, filepath.Join(root, "hard.jsonl")); err != nil {
		t.Fatal(err)
	}
	sum, err = a.Index(ctx, ingest.IndexOptions{Roots: []string{root, filepath.Join(root, "real")}})
	if err != nil || sum.Files != 1 || sum.Indexed != 0 {
		t.Fatalf("Index with a hard link = %+v, %v; want 1 file, unchanged", sum, err)
	}
	sessions, _ := sessionsOf(ctx, a)
	if len(sessions) != 1 || sessions[0].Path != real {
		t.Fatalf("sessions = %+v, want one, at %s", sessions, real)
	}
}
