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
