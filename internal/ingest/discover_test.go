package ingest

import (
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// TestFindSessionFilesAgentHomes: history files are no sessions only in
// an agent's home; a .zst is listed unless its .jsonl sibling is there.
func TestFindSessionFilesAgentHomes(t *testing.T) {
	root := t.TempDir()
	codex := filepath.Join(root, "codex")
	testutil.MustWriteFile(t, filepath.Join(codex, "sessions"), "rollout-a.jsonl", nil)
	testutil.MustWriteFile(t, filepath.Join(codex, "sessions"), "rollout-a.jsonl.zst", nil)
	testutil.MustWriteFile(t, filepath.Join(codex, "sessions"), "rollout-b.jsonl.zst", nil)
	testutil.MustWriteFile(t, codex, "history.jsonl", nil)
	testutil.MustWriteFile(t, codex, "session_index.jsonl", nil)
	claude := filepath.Join(root, "claude")
	testutil.MustWriteFile(t, filepath.Join(claude, "projects", "-w"), "s.jsonl", nil)
	testutil.MustWriteFile(t, filepath.Join(claude, "projects", "-w"), "agent-1.meta.json", nil)
	testutil.MustWriteFile(t, claude, "history.jsonl", nil)
	testutil.MustWriteFile(t, claude, "session_index.jsonl", nil) // not Claude's: a session file
	testutil.MustWriteFile(t, filepath.Join(root, "other"), "history.jsonl", nil)
	files, _, err := FindSessionFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	want := []string{"claude/projects/-w/s.jsonl", "claude/session_index.jsonl", "codex/sessions/rollout-a.jsonl", "codex/sessions/rollout-b.jsonl.zst", "other/history.jsonl"}
	if len(got) != len(want) {
		t.Fatalf("FindSessionFiles:\n got %v\nwant %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("FindSessionFiles:\n got %v\nwant %v", got, want)
		}
	}
}
