package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIsSessionFileAgentHomes: grove watch hears of files one by one and takes the
// rule discovery uses: a Codex home's history.jsonl is no session, a .zst
// is one until its .jsonl is there.
func TestIsSessionFileAgentHomes(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	zst := filepath.Join(home, "sessions", "rollout-a.jsonl.zst")
	for _, c := range []struct {
		path string
		want bool
	}{
		{filepath.Join(home, "history.jsonl"), false},
		{filepath.Join(home, "session_index.jsonl"), false},
		{filepath.Join(home, "sessions", "history.jsonl"), true},
		{filepath.Join(home, "sessions", "rollout-a.jsonl"), true},
		{zst, true},
		{filepath.Join(home, "sessions", "a.meta.json"), false},
	} {
		if got := IsSessionFile(c.path); got != c.want {
			t.Errorf("IsSessionFile(%s) = %v, want %v", c.path, got, c.want)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "sessions", "rollout-a.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if IsSessionFile(zst) {
		t.Errorf("IsSessionFile(%s) with its .jsonl beside it = true, want false", zst)
	}
}
