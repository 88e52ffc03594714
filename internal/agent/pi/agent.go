package pi

import (
	"context"
	"path/filepath"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// Agent is pi (SPEC §3.2). The zero value reads no lines: use New.
type Agent struct{ jsonl.Rules }

// New is pi's agent, its lines read as jsonl/dialect_pi.go says.
func New() Agent { return Agent{jsonl.RulesOf(jsonl.Pi)} }

// Name is "pi".
func (Agent) Name() string { return "pi" }

// Traits: the last entry is the active leaf, forks copy lines as they
// are, the model context is pi's messages, and a session without message
// activity is as recent as its header, else its file (pi's /resume).
func (Agent) Traits() kit.Traits {
	return kit.Traits{ActiveLeaf: kit.LastEntry, Copies: kit.SameLine, Form: kit.PiMessages}
}

// Roots: $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions
// (SPEC §8).
func (Agent) Roots(home string, getenv func(string) string) []string {
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return []string{filepath.Join(d, "sessions")}
	}
	return []string{filepath.Join(home, ".pi", "agent", "sessions")}
}

// RootsDoc names Roots.
func (Agent) RootsDoc() kit.RootsDoc {
	return kit.RootsDoc{Help: "pi ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)",
		Hint: "$PI_CODING_AGENT_DIR/sessions (else ~/.pi/agent/sessions)"}
}

// Claims no file by where it is: an empty file is plain (SPEC §3).
func (Agent) Claims(string, func(string) string) bool { return false }

// SessionFile: every *.jsonl under pi's root is a session.
func (Agent) SessionFile(string, string) kit.FileKind { return kit.NotMine }

// SessionID is the header's id, else the file name without .jsonl
// (SPEC §3.3).
func (Agent) SessionID(path string, h *jsonl.Header) string { return kit.StemID(path, h) }

// Workspace is the header's cwd (SPEC §3.3); a read that found no header
// keeps prev.
func (Agent) Workspace(prev, _ string, h *jsonl.Header, _ *kit.Facts) string {
	if h != nil {
		return h.Cwd
	}
	return prev
}

// MetaFacts: a pi session's name is in its session_info entries and its
// parent in its header; nothing else says more.
func (Agent) MetaFacts(string, *kit.Identity, *jsonl.Result, func(string) (bool, error), func() (*jsonl.Result, error)) error {
	return nil
}

// FallbackName: none.
func (Agent) FallbackName(string) string { return "" }

// ChildKind: a session naming another as its parentSession is its fork.
func (Agent) ChildKind(string) string { return "fork" }

// Activity is pi's getLastActivityTime (jsonl.ActivityTime): the
// message's own time, else the entry's.
func (Agent) Activity(e *jsonl.Entry) (int64, bool) {
	return jsonl.ActivityTime(e.Raw, e.Timestamp, e.HasTime)
}

// Preview is the preview of a pi entry line (preview.go).
func (Agent) Preview(raw []byte) string { return Preview(raw) }

// ContextLine: the types in ContextTypes.
func (Agent) ContextLine(typ, _ string) bool { return ContextTypes[typ] }

// Context is BuildContext over in.Path, with the session's version.
func (Agent) Context(in kit.ContextInput) (*kit.Context, error) {
	return Context(jsonl.Pi, in)
}

// ContextHeader: the context reads no header line (the version comes
// with the session).
func (Agent) ContextHeader([]byte) bool { return false }

// ContextStart: see ContextStart.
func (Agent) ContextStart(_ context.Context, path []jsonl.Entry, _ func(int) ([]byte, error)) (int, error) {
	return ContextStart(path), nil
}

// EditEntry: context_edit (pi 1.x).
func (Agent) EditEntry(typ string) bool { return typ == "context_edit" }

// EditLine: the types in EditTypes.
func (Agent) EditLine(typ string) bool { return EditTypes[typ] }

// ContextEdits: see ContextEdits (edit.go).
func (Agent) ContextEdits(path []jsonl.Entry, version int) (map[string]string, error) {
	return ContextEdits(path, version)
}

// ForLLM is pi's convertToLlm (llm.go).
func (Agent) ForLLM(c *kit.Context) *kit.Context { return ForLLM(c) }
