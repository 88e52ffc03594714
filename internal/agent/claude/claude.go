// Package claude is grove's knowledge of Claude Code (SPEC §3.4,
// FORMATS.md §1): its roots ($CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects and ~/.config/claude/projects), its sub-agent files
// (sessions of their own, named by their meta.json), a session's name
// from its title and summary lines, its active leaf (the last leaf that is
// no sidechain), the preview of its lines (the CLI's wrapper tags shown
// as the user typed them), and its model context (the message groups and
// parallel tool results of SPEC §3.4).
//
// Its lines are read by jsonl/dialect_claude.go (uuid/parentUuid trees,
// metadata lines, jsonl.ClaudeMeta), their search text by
// jsonl/text_agents.go. grove never writes its files (SPEC §5).
//
// # Caveats
//
//   - The workspace is the first cwd of an entry; a session that moved
//     (a relocated line) keeps the one it started in.
//   - A sub-agent file's meta.json is read for its name only when the
//     session's own lines name it nowhere.
package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// Agent is Claude Code. The zero value reads no lines: use New.
type Agent struct{ jsonl.Rules }

// New is Claude Code's agent, its lines read as jsonl/dialect_claude.go
// says.
func New() Agent { return Agent{jsonl.RulesOf(jsonl.Claude)} }

// Name is "Claude Code".
func (Agent) Name() string { return "Claude Code" }

// Traits: the last leaf that is no sidechain is active; a copy keeps the
// uuid and the message; the context is the API's messages; a session is
// named by its title lines.
func (Agent) Traits() kit.Traits {
	return kit.Traits{ActiveLeaf: kit.LastMainLeaf, Copies: kit.SameMessage, Form: kit.APIMessages,
		ModifiedByEntryTime: true, NamedByMetadata: true}
}

// Roots: $CLAUDE_CONFIG_DIR/projects, which stands for ~/.claude as a
// whole; else ~/.claude/projects and ~/.config/claude/projects (Claude
// Code does not read XDG_CONFIG_HOME, FORMATS.md §1.1).
func (Agent) Roots(home string, getenv func(string) string) []string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return []string{filepath.Join(d, "projects")}
	}
	return []string{filepath.Join(home, ".claude", "projects"), filepath.Join(home, ".config", "claude", "projects")}
}

// RootsDoc names Roots.
func (Agent) RootsDoc() kit.RootsDoc {
	return kit.RootsDoc{Help: "Claude Code ($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects and ~/.config/claude/projects)",
		Hint: "$CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects and ~/.config/claude/projects)"}
}

// Claims a file under $CLAUDE_CONFIG_DIR/projects (SPEC §3: a file with no
// parseable line under a Claude projects/ root is claude; the default
// roots are jsonl.DialectAt's by their names).
func (Agent) Claims(path string, getenv func(string) string) bool {
	if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		if rel, err := filepath.Rel(filepath.Join(dir, "projects"), path); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}

// SessionFile: history.jsonl in a Claude config directory (one holding
// projects/) is the prompt history, no session (FORMATS.md §1.1); a
// history.jsonl anywhere else is read like any other file.
func (Agent) SessionFile(dir, name string) kit.FileKind {
	if name != "history.jsonl" {
		return kit.NotMine
	}
	if fi, err := os.Stat(filepath.Join(dir, "projects")); err == nil && fi.IsDir() {
		return kit.Skipped
	}
	return kit.NotMine
}

// SessionID is the file name without .jsonl (SPEC §3.4: what
// `claude --resume` takes); a sub-agent's is agent-<id>.
func (Agent) SessionID(path string, h *jsonl.Header) string { return kit.StemID(path, h) }

// Workspace is the first non-empty cwd of an entry (SPEC §3.4): prev, when
// an earlier read found one.
func (Agent) Workspace(prev, _ string, _ *jsonl.Header, f *kit.Facts) string {
	if prev != "" {
		return prev
	}
	return f.FirstCwd
}

// FallbackName is a sub-agent's meta.json description (SubagentName).
func (Agent) FallbackName(path string) string { return SubagentName(path) }

// ChildKind: an agent-*.jsonl file is a sub-agent (SPEC §3.4); another
// file whose lines name another session is a "child".
func (Agent) ChildKind(path string) string {
	if strings.HasPrefix(filepath.Base(path), "agent-") {
		return "sub-agent"
	}
	return "child"
}

// Activity is the entry's own time.
func (Agent) Activity(e *jsonl.Entry) (int64, bool) { return e.Timestamp, e.HasTime }

// Preview: see preview.go.
func (Agent) Preview(raw []byte) string { return Preview(raw) }

// ContextLine: user and assistant lines.
func (Agent) ContextLine(typ, _ string) bool { return typ == "user" || typ == "assistant" }

// Context: see Context in context.go.
func (Agent) Context(in kit.ContextInput) (*kit.Context, error) { return Context(in.Path, in.Children) }

// ContextHeader: none.
func (Agent) ContextHeader([]byte) bool { return false }

// ContextStart: a compacted path starts at its compact_boundary root
// (SPEC §3.4): -1.
func (Agent) ContextStart(context.Context, []jsonl.Entry, func(int) ([]byte, error)) (int, error) {
	return -1, nil
}

// RunLine: user and assistant lines (Task calls, sidechain roots, the
// results that name a sub-agent).
func (Agent) RunLine(typ string) bool { return typ == "user" || typ == "assistant" }

// Runs: see Runs in runs.go.
func (Agent) Runs(entries []jsonl.Entry) []kit.Run { return Runs(entries) }

// ForLLM is a copy of c: its messages already are what the model received.
func (Agent) ForLLM(c *kit.Context) *kit.Context { out := *c; return &out }
