package archive

import (
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// TestSubagentName: a 2.1.x sub-agent's meta.json gives its name, the
// description first, else the agent type, trimmed; nothing for other files,
// a missing or malformed meta file, or fields that are no strings.
func TestSubagentName(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "s", "subagents")
	testutil.MustWriteFile(t, sub, "agent-a1.meta.json", []byte(`{"agentType":"Explore","description":"  Find the build scripts\n"}`))
	testutil.MustWriteFile(t, sub, "agent-a2.meta.json", []byte(`{"agentType":"Plan","description":"   "}`))
	testutil.MustWriteFile(t, sub, "agent-a3.meta.json", []byte(`{"agentType":7,"description":null}`))
	testutil.MustWriteFile(t, sub, "agent-a4.meta.json", []byte(`{"agentType":`))
	testutil.MustWriteFile(t, dir, "x.meta.json", []byte(`{"description":"not a sub-agent"}`))
	for _, c := range []struct{ path, want string }{
		{filepath.Join(sub, "agent-a1.jsonl"), "Find the build scripts"},
		{filepath.Join(sub, "agent-a2.jsonl"), "Plan"},
		{filepath.Join(sub, "agent-a3.jsonl"), ""},
		{filepath.Join(sub, "agent-a4.jsonl"), ""},
		{filepath.Join(sub, "agent-a5.jsonl"), ""}, // no meta file (2.0.x)
		{filepath.Join(dir, "x.jsonl"), ""},
	} {
		if got := SubagentName(c.path); got != c.want {
			t.Errorf("SubagentName(%s) = %q, want %q", filepath.Base(c.path), got, c.want)
		}
	}
}

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
