package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// A root reached through a symlink is followed, symlinked session files are
// indexed, an unchanged file is not read again, a changed one is, and a
// session whose file is gone leaves the index.
func TestIndex_RootsSymlinksAndRemoval(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	a1 := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), real, "ws/a.jsonl")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v2-branches.jsonl"), real, "ws/b.jsonl")
	if err := os.Symlink(testutil.Testdata(t, "plain/chapter-tree.jsonl"), filepath.Join(real, "ws", "c.jsonl")); err != nil {
		t.Fatal(err)
	}
	testutil.MustWriteFile(t, real, "notes.txt", []byte("not a session"))
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	opts := archive.IndexOptions{Roots: []string{link}}
	sum, err := a.Index(ctx, opts)
	if err != nil || sum.Files != 3 || sum.Indexed != 3 || sum.Entries != 35+21+6 {
		t.Fatalf("first Index = %+v, %v; want 3 files, 3 indexed, 62 entries", sum, err)
	}
	sum, err = a.Index(ctx, opts)
	if err != nil || sum.Unchanged != 3 || sum.Indexed != 0 {
		t.Fatalf("second Index = %+v, %v; want 3 unchanged", sum, err)
	}
	f, _ := os.OpenFile(a1, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"label","id":"zz000001","parentId":"b7395fc2","timestamp":"2026-03-03T09:00:00.000Z","targetId":"b7395fc2","label":"jose"}` + "\n")
	f.Close()
	if err := os.Remove(filepath.Join(real, "ws", "b.jsonl")); err != nil {
		t.Fatal(err)
	}
	sum, err = a.Index(ctx, opts)
	if err != nil || sum.Files != 2 || sum.Indexed != 1 || sum.Appended != 1 || sum.Unchanged != 1 || sum.Removed != 1 || sum.Entries != 1 {
		t.Fatalf("third Index = %+v, %v; want 2 files, 1 indexed by its appended line (1 entry), 1 unchanged, 1 removed", sum, err)
	}
	sessions, _ := a.Sessions(ctx, "")
	if len(sessions) != 2 {
		t.Fatalf("sessions = %d, want 2", len(sessions))
	}
	leaves, _ := a.Leaves(ctx, archive.Filter{Session: "5b7e2c14"})
	last := leaves[0] // newest activity first
	if last.EntryID != "zz000001" || !last.Active || last.Label != "" {
		t.Fatalf("last leaf = %s active %v label %q, want the appended label entry, active", last.EntryID, last.Active, last.Label)
	}
	rep, err := a.Verify(ctx, "")
	if err != nil || rep.Mismatches+rep.Stale != 0 {
		t.Fatalf("verify = %+v, %v", rep, err)
	}
}
