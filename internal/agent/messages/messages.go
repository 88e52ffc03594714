// Package messages is grove's knowledge of the resume chapter's messages
// log (SPEC §3.6, FORMATS.md §3): one Anthropic Messages API message per
// line, no header, no ids (L<line>, one chain). Its workspace is the
// folder holding it; its context is every line as stored; a log named by
// its path is answered from the file, indexed or not (the chapter's
// loadMessages).
//
// Its lines are read by jsonl/dialect_messages.go, their search text by
// jsonl/text_agents.go.
package messages

import (
	"context"
	"path/filepath"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// Agent is the messages log. The zero value reads no lines: use New.
type Agent struct{ jsonl.Rules }

// New is the messages log's agent, its lines read as
// jsonl/dialect_messages.go says.
func New() Agent { return Agent{jsonl.RulesOf(jsonl.Messages)} }

// Name is "messages".
func (Agent) Name() string { return "messages" }

// Traits: one chain, the messages as the API received them, answered from
// the file when named by its path.
func (Agent) Traits() kit.Traits {
	return kit.Traits{ActiveLeaf: kit.LastEntry, Copies: kit.SameLine, Chain: true, Form: kit.APIMessages,
		ModifiedByEntryTime: true, FromFile: true}
}

// Roots: none; the chapter keeps the log in the agent's working directory.
func (Agent) Roots(string, func(string) string) []string { return nil }

// RootsDoc: none.
func (Agent) RootsDoc() kit.RootsDoc { return kit.RootsDoc{} }

// Claims no file by where it is.
func (Agent) Claims(string, func(string) string) bool { return false }

// SessionFile: nothing to say.
func (Agent) SessionFile(string, string) kit.FileKind { return kit.NotMine }

// SessionID is the file name without .jsonl (SPEC §3.6).
func (Agent) SessionID(path string, h *jsonl.Header) string { return kit.StemID(path, h) }

// Workspace is the absolute path of the folder that holds the file (SPEC
// §3.6); a read that goes on from an earlier one keeps prev.
func (Agent) Workspace(prev, path string, _ *jsonl.Header, _ *kit.Facts) string {
	if prev != "" {
		return prev
	}
	return Workspace(path)
}

// Workspace is a messages log's workspace (SPEC §3.6): the absolute path
// of the folder that holds the file at path.
func Workspace(path string) string {
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// MetaFacts: nothing but entries says anything.
func (Agent) MetaFacts(string, *kit.Identity, *jsonl.Result, func(string) (bool, error), func() (*jsonl.Result, error)) error {
	return nil
}

// FallbackName: none.
func (Agent) FallbackName(string) string { return "" }

// ChildKind: "child".
func (Agent) ChildKind(string) string { return "child" }

// Activity: the log's lines have no time.
func (Agent) Activity(e *jsonl.Entry) (int64, bool) { return e.Timestamp, e.HasTime }

// Preview is the line as a chat message: its text, else its tool_use
// blocks ("[tool_use bash] ls"), else its tool_result blocks
// ("[tool_result] …", "[tool_result error] …"), else its thinking
// (kit.ChatPreview); a string content as it is.
func (Agent) Preview(raw []byte) string {
	var m kit.Chat
	if !kit.DecodeLoose(raw, &m) {
		return ""
	}
	if m.Content == nil {
		// A string content is a type error above; decoded alone.
		var s struct {
			Content *string `json:"content"`
		}
		if kit.DecodeLoose(raw, &s) && s.Content != nil {
			return *s.Content
		}
	}
	return kit.ChatPreview(m.Content, nil)
}

// ContextLine: every line.
func (Agent) ContextLine(string, string) bool { return true }

// Context is every entry's line as stored, keptEntryIds the L<line> ids;
// thinkingLevel "off", model null (the log records neither).
func (a Agent) Context(in kit.ContextInput) (*kit.Context, error) {
	c := kit.EmptyContext(jsonl.Messages)
	for i := range in.Path {
		c.Messages = append(c.Messages, a.Message(in.Path[i].Type, in.Path[i].Raw))
		c.KeptEntryIDs = append(c.KeptEntryIDs, in.Path[i].ID)
	}
	return c, nil
}

// ContextHeader: none.
func (Agent) ContextHeader([]byte) bool { return false }

// ContextStart: no compaction: -1.
func (Agent) ContextStart(context.Context, []jsonl.Entry, func(int) ([]byte, error)) (int, error) {
	return -1, nil
}

// ForLLM is a copy of c: its messages already are what the model received.
func (Agent) ForLLM(c *kit.Context) *kit.Context { out := *c; return &out }
