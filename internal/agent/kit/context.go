package kit

import (
	"encoding/json"

	"github.com/grove-sessions/grove/jsonl"
)

// Context is what a model receives at a leaf (SPEC §4.1, pi's
// buildSessionContext; SPEC §3.4–3.6 for the other agents): the messages,
// the entry each came from, the thinking level and the model.
type Context struct {
	// Messages are JSON objects: a `message` entry's message byte for byte
	// as stored, or a message made from a compaction, branch_summary or
	// custom_message entry (keys in pi's order; a field the entry lacks is
	// left out, as JavaScript's JSON.stringify leaves out undefined).
	Messages []json.RawMessage
	// KeptEntryIDs[i] is the id of the entry Messages[i] came from (the
	// compaction's own id for its summary).
	KeptEntryIDs []string
	// ThinkingLevel is the JSON value of the last thinking_level_change on
	// the path, or "off".
	ThinkingLevel json.RawMessage
	// Model is the last model_change or assistant message on the path, or
	// nil when there is none.
	Model *Model
	// Version is the session's pi version (0 for plain), for ForLLM: before
	// version 3 the custom role was spelled hookMessage. BuildContext leaves
	// it 0; callers that know it set it.
	Version int
	// Dialect is the session's dialect; "" (as BuildContext leaves it) is
	// pi's rules. ForLLM leaves the messages of messages, claude and codex
	// as they are: they already are what the model received.
	Dialect jsonl.Dialect
}

// Model is a model as pi tracks it along a path: provider and modelId as
// the entry wrote them (an assistant message's "model" is its modelId).
type Model struct {
	Provider json.RawMessage `json:"provider,omitempty"`
	ModelID  json.RawMessage `json:"modelId,omitempty"`
}

// EmptyContext is a context without messages for dialect d: thinking
// level "off", no model.
func EmptyContext(d jsonl.Dialect) *Context {
	return &Context{Dialect: d, ThinkingLevel: json.RawMessage(`"off"`), Messages: []json.RawMessage{}, KeptEntryIDs: []string{}}
}

// ContextInput is what an agent's Context rules read: the path and what
// the session holds beside it, each part given only when asked for.
type ContextInput struct {
	// Path is the entries from a root down to the leaf, root first, as
	// PathTo returns them, with Raw for every entry whose line the agent's
	// ContextLine picks (the others may have a nil Raw).
	Path []jsonl.Entry
	// Version is the session's pi version (SPEC §3.2); 0 for the other
	// dialects.
	Version int
	// Children gives the children of the entry id in file order, with Raw
	// as for Path; nil when none are known. Claude Code's context asks for
	// them (the lines of one API message and the tool results off the
	// path, SPEC §3.4).
	Children func(id string) []jsonl.Entry
	// Header gives the session's header line as the agent's ContextHeader
	// picks it (Codex's session_meta), nil when there is none; a nil
	// Header means none. Errors: those of reading the file.
	Header func() (json.RawMessage, error)
}

// StartOrNone is the index i on a path as a context start
// (Agent.ContextStart): -1 for the root, where every path starts anyway.
func StartOrNone(i int) int {
	if i == 0 {
		return -1
	}
	return i
}

// Run is one sub-agent run that a Task (Claude Code 2.1: Agent) tool call
// started (FORMATS.md §1.6): inline in the session's own file (Claude
// Code 1.0: a sidechain root, isSidechain: true and parentUuid null, whose
// user text is the call's prompt), or in a file of its own (2.0 and 2.1:
// the session agent-<agentId>, beside the session or under
// <session>/subagents/).
type Run struct {
	// Call is the id of the assistant entry holding the tool_use, and
	// ToolUseID the tool_use's own id; both "" for a sidechain root no
	// call's prompt matches.
	Call, ToolUseID string
	// Root is the id of the run's sidechain root in the same file; "" for a
	// run in a file of its own.
	Root string
	// Session is the id of the sub-agent session the call's result names
	// (agent-<agentId>); "" for an inline run.
	Session string
}
