package archive_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// The real Claude Code, Codex and messages sessions in ../shared/corpus
// (read where they are, never copied) are read in their dialect with no
// bad line, index cleanly, verify, and give by CTE every leaf's PathTo
// path and its messages as FORMATS.md says: Claude sub-agent files have
// their parent session, the inline sidechains of the 1.0.x file are never
// its active path, a Codex rollout is one chain.
func TestCorpus_DialectsIndexAndVerify(t *testing.T) {
	ctx := context.Background()
	for _, d := range []jsonl.Dialect{jsonl.Claude, jsonl.Codex, jsonl.Messages} {
		t.Run(string(d), func(t *testing.T) {
			root := testutil.MustShared(t, "corpus/"+string(d))
			a := mustOpenArchive(t, testutil.MustTempDB(t))
			sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Files == 0 || sum.Indexed != sum.Files || sum.Damaged != 0 {
				t.Fatalf("Index = %+v, want every file indexed, none damaged", sum)
			}
			rep, err := a.Verify(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if rep.Sessions != sum.Files || rep.Mismatches != 0 || rep.Stale != 0 {
				t.Fatalf("Verify = %+v, want every session verified clean", rep)
			}
			sessions, err := a.Sessions(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sessions {
				pure, err := archive.Load(s.Path)
				if err != nil {
					t.Fatal(err)
				}
				if s.Dialect != d || pure.Dialect != d || s.State != "ok" {
					t.Errorf("%s: dialect %s (pure %s), state %s; want %s, ok", s.Path, s.Dialect, pure.Dialect, s.State, d)
				}
				if s.Workspace == "" && d != jsonl.Codex {
					t.Errorf("%s: no workspace", s.Path)
				}
				if d == jsonl.Claude && filepath.Base(s.Path)[:6] == "agent-" && s.ParentSession == "" {
					t.Errorf("%s: a sub-agent file without parent_session", s.Path)
				}
				if d != jsonl.Claude && s.Leaves != 1 {
					t.Errorf("%s: %d leaves; a %s session is one chain", s.Path, s.Leaves, d)
				}
				if s.ActiveLeaf == nil || *s.ActiveLeaf != archive.ActiveLeaf(pure.Dialect, pure.Entries) {
					t.Errorf("%s: active leaf %v, ActiveLeaf %q", s.Path, s.ActiveLeaf, archive.ActiveLeaf(pure.Dialect, pure.Entries))
				}
				for _, l := range archive.Leaves(pure.Entries) {
					want, werr := archive.MessagesOnPath(pure.Dialect, pure.Entries, l.ID)
					_, got, gerr := a.Messages(ctx, s.Path, l.ID)
					if (werr == nil) != (gerr == nil) || len(got) != len(want) {
						t.Fatalf("%s leaf %s: messages by CTE %d (%v), MessagesOnPath %d (%v)", s.Path, l.ID, len(got), gerr, len(want), werr)
					}
					for i := range got {
						if string(got[i]) != string(want[i]) {
							t.Fatalf("%s leaf %s: message %d differs", s.Path, l.ID, i)
						}
					}
				}
				if d == jsonl.Claude && s.ActiveLeaf != nil {
					for _, e := range pure.Entries {
						if e.ID == *s.ActiveLeaf && e.Sidechain && len(pure.Entries) > 0 && !allSidechain(pure.Entries) {
							t.Errorf("%s: the active leaf %s is a sidechain", s.Path, e.ID)
						}
					}
				}
			}
		})
	}
}

func allSidechain(entries []jsonl.Entry) bool {
	for _, e := range entries {
		if !e.Sidechain {
			return false
		}
	}
	return true
}
