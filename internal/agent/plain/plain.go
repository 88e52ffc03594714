// Package plain is grove's knowledge of the plain dialect (SPEC §3.1): the
// committed log of the session-tree chapter, no header, every line an
// entry of type message (pi's AgentMessage) or metadata. Its entries are
// pi's, so its preview, model context and --llm rules are pi's (package
// pi); what differs is identity (the file name, the last metadata "cwd")
// and that no agent has default roots for it.
//
// Its lines are read by jsonl/dialect_plain.go, their search text by
// jsonl/text.go. A file no line decides is plain (SPEC §3): it is
// agent.Default.
//
// # Caveats
//
//   - A plain file has no compaction, so its context is MessagesOnPath.
package plain

import (
	"context"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/internal/agent/pi"
	"github.com/grove-sessions/grove/jsonl"
)

// Agent is the plain dialect. The zero value reads no lines: use New.
type Agent struct{ jsonl.Rules }

// New is plain's agent, its lines read as jsonl/dialect_plain.go says.
func New() Agent { return Agent{jsonl.RulesOf(jsonl.Plain)} }

// Name is "plain".
func (Agent) Name() string { return "plain" }

// Traits: pi's, but a session without message activity is as recent as
// its latest entry (it has no header time), and grove does not fork it.
func (Agent) Traits() kit.Traits {
	return kit.Traits{ActiveLeaf: kit.LastEntry, Copies: kit.SameLine, Form: kit.PiMessages, ModifiedByEntryTime: true}
}

// Roots: none; plain files are indexed where --root or $GROVE_ROOT names.
func (Agent) Roots(string, func(string) string) []string { return nil }

// RootsDoc: none.
func (Agent) RootsDoc() kit.RootsDoc { return kit.RootsDoc{} }

// Claims no file by where it is.
func (Agent) Claims(string, func(string) string) bool { return false }

// SessionFile: nothing to say.
func (Agent) SessionFile(string, string) kit.FileKind { return kit.NotMine }

// SessionID is the file name without .jsonl (SPEC §3.3).
func (Agent) SessionID(path string, h *jsonl.Header) string { return kit.StemID(path, h) }

// Workspace is the value of the last metadata entry of key "cwd" (SPEC
// §3.3); a read that found none keeps prev.
func (Agent) Workspace(prev, _ string, _ *jsonl.Header, f *kit.Facts) string {
	if f.HasCwd {
		return f.Cwd
	}
	return prev
}

// MetaFacts: nothing but entries says anything.
func (Agent) MetaFacts(string, *kit.Identity, *jsonl.Result, func(string) (bool, error), func() (*jsonl.Result, error)) error {
	return nil
}

// FallbackName: none.
func (Agent) FallbackName(string) string { return "" }

// ChildKind: "child".
func (Agent) ChildKind(string) string { return "child" }

// Activity is pi's rule (jsonl.ActivityTime).
func (Agent) Activity(e *jsonl.Entry) (int64, bool) {
	return jsonl.ActivityTime(e.Raw, e.Timestamp, e.HasTime)
}

// Preview is pi's.
func (Agent) Preview(raw []byte) string { return pi.Preview(raw) }

// ContextLine is pi's.
func (Agent) ContextLine(typ, _ string) bool { return pi.ContextTypes[typ] }

// Context is pi's BuildContext.
func (Agent) Context(in kit.ContextInput) (*kit.Context, error) { return pi.Context(jsonl.Plain, in) }

// ContextHeader: none.
func (Agent) ContextHeader([]byte) bool { return false }

// ContextStart: a plain path has no compaction: -1.
func (Agent) ContextStart(context.Context, []jsonl.Entry, func(int) ([]byte, error)) (int, error) {
	return -1, nil
}

// ForLLM is pi's convertToLlm.
func (Agent) ForLLM(c *kit.Context) *kit.Context { return pi.ForLLM(c) }
