package archive_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// Verify compares runs, the entry count, the duplicated id and the active
// marks once per session and walks one leaf; an index altered in any of
// them is still reported, each wrong path with its leaf as before.
func TestVerify_FindsAlteredRunsAndMarks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "v3.jsonl")
	loaded, err := archive.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	leaves := archive.Leaves(loaded.Entries)
	if len(leaves) < 2 {
		t.Fatalf("v3-tree has %d leaves, want several", len(leaves))
	}
	seqOf := map[string]int{}
	for i, e := range loaded.Entries {
		seqOf[e.ID] = i
	}
	first := leaves[0] // not the leaf verify walks when the runs are right
	for _, c := range []struct {
		name   string
		alter  string
		paths  bool // some leaf's path is wrong: each is reported
		active bool // an active marks mismatch is reported
	}{
		{"a leaf moved to the root's run", fmt.Sprintf("UPDATE entries SET run = 0, pos = 0 WHERE seq = %d", seqOf[first.ID]), true, false},
		{"a leaf's pos moved back", fmt.Sprintf("UPDATE entries SET pos = pos - 2 WHERE seq = %d AND pos > 1", seqOf[first.ID]), true, false},
		{"a run head moved", "UPDATE entries SET run = run + 1 WHERE seq = 1", true, false},
		{"a duplicated id that is not there", "UPDATE sessions SET duplicate_id = 'a3f0c912'", true, false},
		{"an active mark lost", "UPDATE entries SET active = 0 WHERE seq = 0", false, true},
		{"an active mark too many", fmt.Sprintf("UPDATE entries SET active = 1 WHERE seq = %d", seqOf[first.ID]), false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "index.db")
			a := mustOpenArchive(t, db)
			if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
				t.Fatal(err)
			}
			if rep, err := a.Verify(ctx, ""); err != nil || rep.Mismatches != 0 || len(rep.Problems) != 0 {
				t.Fatalf("Verify of a fresh index = %+v, %v; want clean", rep, err)
			}
			mustSQL(t, db, c.alter)
			rep, err := a.Verify(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			// What verify found before runs: each leaf whose CTE answer
			// differs from PathTo's.
			s, err := archive.DBOf(a).SessionByPath(ctx, file)
			if err != nil {
				t.Fatal(err)
			}
			var wantLeaves, gotLeaves []string
			for _, l := range leaves {
				if cteAnswer(ctx, archive.DBOf(a), s.SID, l.ID) != pathToAnswer(loaded.Entries, l.ID) {
					wantLeaves = append(wantLeaves, l.ID)
				}
			}
			if c.paths != (len(wantLeaves) > 0) {
				t.Fatalf("after %s, %d leaves have a wrong path; the case wants wrong paths %t", c.alter, len(wantLeaves), c.paths)
			}
			gotActive := false
			for _, p := range rep.Problems {
				switch {
				case p.Code != "mismatch":
					t.Errorf("problem %+v, want only mismatches", p)
				case p.Leaf != "":
					gotLeaves = append(gotLeaves, p.Leaf)
				case strings.Contains(p.Message, "active marks"):
					gotActive = true
				}
			}
			if strings.Join(gotLeaves, " ") != strings.Join(wantLeaves, " ") || gotActive != c.active || rep.Mismatches != len(rep.Problems) || rep.Leaves != len(leaves) {
				t.Errorf("after %s: leaves %v, active %t, %d mismatches, %d leaves; want leaves %v, active %t, %d leaves (%+v)",
					c.alter, gotLeaves, gotActive, rep.Mismatches, rep.Leaves, wantLeaves, c.active, len(leaves), rep.Problems)
			}
		})
	}
}

// An index whose search text is not in (a first index stopped while it
// was built: the counter EndEntries sets, which AdoptText clears) is no
// clean verify: every session is counted without search text.
func TestVerify_CountsSessionsWithoutSearchText(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "v3.jsonl")
	db := filepath.Join(t.TempDir(), "index.db")
	a := mustOpenArchive(t, db)
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	if rep, err := a.Verify(ctx, ""); err != nil || rep.TextPending != 0 {
		t.Fatalf("Verify of a fresh index = %+v, %v; want no session without search text", rep, err)
	}
	mustSQL(t, db, "INSERT INTO counters (name, value) VALUES ('text_pending', 1)")
	rep, err := a.Verify(ctx, "")
	if err != nil || rep.Sessions != 1 || rep.TextPending != 1 {
		t.Fatalf("Verify with the search text pending = %+v, %v; want its 1 session counted without search text", rep, err)
	}
}
