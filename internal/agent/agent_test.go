package agent_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// Every dialect the reader knows has one agent, in the order grove names
// the dialects, and a dialect it does not know gets plain's (SPEC §3).
func TestOf(t *testing.T) {
	if len(agent.All) != len(jsonl.Dialects) {
		t.Fatalf("len(All) = %d, want %d (one agent per jsonl.Dialects)", len(agent.All), len(jsonl.Dialects))
	}
	for i, d := range jsonl.Dialects {
		if got := agent.All[i].Dialect(); got != d {
			t.Errorf("All[%d].Dialect() = %q, want %q", i, got, d)
		}
		if got := agent.Of(d).Dialect(); got != d {
			t.Errorf("Of(%q).Dialect() = %q", d, got)
		}
	}
	if got := agent.Of("nope").Dialect(); got != jsonl.Plain {
		t.Errorf("Of(%q).Dialect() = %q, want plain", "nope", got)
	}
	if _, ok := agent.Of(jsonl.Pi).(agent.Forker); !ok {
		t.Errorf("pi's agent is no Forker")
	}
	for _, d := range []jsonl.Dialect{jsonl.Plain, jsonl.Messages, jsonl.Claude, jsonl.Codex} {
		if _, ok := agent.Of(d).(agent.Forker); ok {
			t.Errorf("%s's agent is a Forker; only pi forks (SPEC §5)", d)
		}
	}
}

// Roots are SPEC §8's default roots: each agent's variable replaces its
// home as a whole.
func TestAgent_Roots(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string // pi, plain, messages, claude, codex, in order
	}{
		{"homes", nil, []string{"/h/.pi/agent/sessions", "/h/.claude/projects", "/h/.config/claude/projects",
			"/h/.codex/sessions", "/h/.codex/archived_sessions"}},
		{"variables", map[string]string{"PI_CODING_AGENT_DIR": "/p", "CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x"},
			[]string{"/p/sessions", "/c/projects", "/x/sessions", "/x/archived_sessions"}},
	}
	for _, tt := range tests {
		var got []string
		for _, a := range agent.All {
			got = append(got, a.Roots("/h", func(k string) string { return tt.env[k] })...)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Roots = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// SessionFile: the agents' history files are no sessions in their homes
// only; a compressed rollout is listed unless its plain sibling is there
// (FORMATS.md §1.1, §2.1).
func TestAgent_SessionFile(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"codex/sessions", "claude/projects", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "codex/sessions/rollout-a.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	kind := func(dir, name string) agent.FileKind {
		for _, a := range agent.All {
			if k := a.SessionFile(filepath.Join(root, dir), name); k != agent.NotMine {
				return k
			}
		}
		return agent.NotMine
	}
	tests := []struct {
		dir, name string
		want      agent.FileKind
	}{
		{"codex", "history.jsonl", agent.Skipped},
		{"codex", "session_index.jsonl", agent.Skipped},
		{"claude", "history.jsonl", agent.Skipped},
		{"claude", "session_index.jsonl", agent.NotMine},
		{"other", "history.jsonl", agent.NotMine},
		{"codex/sessions", "rollout-b.jsonl.zst", agent.Compressed},
		{"codex/sessions", "rollout-a.jsonl.zst", agent.Skipped},
		{"codex/sessions", "rollout-a.jsonl", agent.NotMine},
	}
	for _, tt := range tests {
		if got := kind(tt.dir, tt.name); got != tt.want {
			t.Errorf("SessionFile(%s, %s) = %v, want %v", tt.dir, tt.name, got, tt.want)
		}
	}
}

// A session's id: the header's, else the file name's; Codex takes the UUID
// its name ends with, and a compressed rollout the one after its last "-"
// (SPEC §3.3–3.6, FORMATS.md §2.3).
func TestAgent_SessionID(t *testing.T) {
	const u = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001"
	tests := []struct {
		d    jsonl.Dialect
		path string
		h    *jsonl.Header
		want string
	}{
		{jsonl.Pi, "/s/a.jsonl", &jsonl.Header{ID: "hid"}, "hid"},
		{jsonl.Pi, "/s/a.jsonl", nil, "a"},
		{jsonl.Claude, "/s/agent-x.jsonl", nil, "agent-x"},
		{jsonl.Messages, "/s/.jsonl", nil, ""},
		{jsonl.Codex, "/s/rollout-2025-12-01T09-00-00-" + u + ".jsonl", nil, u},
		{jsonl.Codex, "/s/rollout-2025-12-01T09-00-00-" + u + ".jsonl", &jsonl.Header{ID: "hid"}, "hid"},
		{jsonl.Codex, "/s/x" + u + ".jsonl", nil, u},
		{jsonl.Codex, "/s/rollout-2025-12-01T09-00-00-" + u + ".jsonl.zst", nil, u},
		{jsonl.Codex, "/s/x" + u + ".jsonl.zst", nil, "x" + u},
		{jsonl.Codex, "/s/plain.jsonl", nil, "plain"},
	}
	for _, tt := range tests {
		if got := agent.Of(tt.d).SessionID(tt.path, tt.h); got != tt.want {
			t.Errorf("%s SessionID(%q) = %q, want %q", tt.d, tt.path, got, tt.want)
		}
	}
}
