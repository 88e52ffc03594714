package archive_test

import (
	"context"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// The real pi session in ../shared/corpus indexes cleanly, and every leaf's
// path by CTE equals PathTo over the file. The corpus is read where it is,
// never copied into the project.
func TestCorpus_IndexesAndVerifies(t *testing.T) {
	root := testutil.MustShared(t, "corpus")
	ctx := context.Background()
	a := mustOpenArchive(t, testutil.MustTempDB(t))
	sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files == 0 || sum.Indexed != sum.Files || sum.Entries == 0 {
		t.Fatalf("Index = %+v, want every file indexed with entries", sum)
	}
	rep, err := a.Verify(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != sum.Files || rep.Leaves == 0 || rep.Mismatches != 0 || rep.Stale != 0 {
		t.Fatalf("Verify = %+v, want every session verified clean", rep)
	}
	sessions, _ := a.Sessions(ctx, "")
	for _, s := range sessions {
		if s.State != "ok" {
			t.Errorf("%s: state %s, want ok", s.Path, s.State)
		}
		_, msgs, err := a.Messages(ctx, s.Path, "")
		if err != nil || len(msgs) == 0 {
			t.Errorf("%s: messages = %d, %v", s.Path, len(msgs), err)
		}
	}
	// A second run reads nothing again.
	again, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}})
	if err != nil || again.Unchanged != sum.Files || again.Indexed != 0 {
		t.Fatalf("second Index = %+v, %v; want all unchanged", again, err)
	}
}
