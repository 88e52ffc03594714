package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// TestArchiveRuns_Corpus checks the sub-agent runs of the corpus's Claude
// Code sessions (FORMATS.md §1.6): fe5e1c67 (1.0.98) holds five inline
// runs, 405 of its 437 entries, each started by a Task call whose prompt
// is the run's first text, and lists only its main conversation's leaf;
// 29ccd257 (2.1.17) started the sub-agent session agent-a2271d1, whose
// Task result names it (toolUseResult.agentId), linked both ways.
func TestArchiveRuns_Corpus(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "corpus", "claude", "projects")
	if _, err := os.Stat(filepath.Join(root, "-path-to-Demo", "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")); err != nil {
		t.Skipf("the Claude Code corpus is not here (%v)", err)
	}
	ctx := context.Background()
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	f := archive.Filter{Session: "fe5e1c67-53e7-4862-81ae-d0e013e3270b"}
	leaves, err := a.Leaves(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(leaves) != 1 || !leaves[0].Active || leaves[0].Side {
		t.Errorf("Leaves(fe5e1c67) = %d leaves, want its one main leaf, the active one: %+v", len(leaves), leaves)
	}
	runs, err := a.RunsOf(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || len(runs[0].Runs) != 5 {
		t.Fatalf("RunsOf(fe5e1c67) = %+v, want one session with 5 runs", runs)
	}
	tree, err := a.Tree(ctx, f.Session, archive.TreeOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for i, e := range tree.Entries {
		byID[e.EntryID] = i
	}
	for _, r := range runs[0].Runs {
		if r.Call == "" || r.ToolUseID == "" || r.Root == "" || len(r.Leaves) != 1 {
			t.Errorf("run %+v: want a call, a root and one leaf", r)
			continue
		}
		root := tree.Entries[byID[r.Root]]
		if !root.Side || root.ParentID != nil {
			t.Errorf("run root %s is no sidechain root", r.Root)
		}
		if tree.Entries[byID[r.Call]].Type != "assistant" {
			t.Errorf("run %s: call %s is no assistant entry", r.Root, r.Call)
		}
	}
	// No leaf listed shows a Task prompt as its last user message.
	for _, r := range runs[0].Runs {
		for _, l := range leaves {
			if l.EntryID == r.Leaves[0] {
				t.Errorf("leaf %s of run %s is listed as a leaf of the main conversation", l.EntryID, r.Root)
			}
		}
	}
	if strings.HasPrefix(leaves[0].Preview, "Create ") {
		t.Errorf("the main leaf's last user message is a Task prompt: %q", leaves[0].Preview)
	}

	main, err := a.Runs(ctx, "29ccd257-68b1-427f-ae5f-6524b7cb6f20")
	if err != nil {
		t.Fatal(err)
	}
	if len(main.Runs) != 1 || main.Runs[0].SessionID != "agent-a2271d1" || main.Runs[0].Session == nil ||
		main.Runs[0].Call != "5678510b-1f74-4e58-bd42-0daa684a5d00" {
		t.Errorf("Runs(29ccd257) = %+v, want the call 5678510b… starting agent-a2271d1", main.Runs)
	}
	sub, err := a.Runs(ctx, "agent-a2271d1")
	if err != nil {
		t.Fatal(err)
	}
	if b := sub.SpawnedBy; b == nil || b.Session.SessionID != "29ccd257-68b1-427f-ae5f-6524b7cb6f20" ||
		b.Call != "5678510b-1f74-4e58-bd42-0daa684a5d00" || b.ToolUseID != "toolu_01SXaWzD5YZ73zGwchbcxeWi" {
		t.Errorf("Runs(agent-a2271d1).SpawnedBy = %+v, want 29ccd257's Task call 5678510b…", sub.SpawnedBy)
	}
	if len(sub.Runs) != 0 {
		t.Errorf("Runs(agent-a2271d1) = %+v: a sub-agent's own file holds no inline run", sub.Runs)
	}
}
