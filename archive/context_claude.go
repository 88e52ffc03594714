package archive

import (
	"encoding/json"
	"slices"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// The model context of the agents that are not pi (SPEC §3.4–3.6):
// AgentContext picks the rules; Claude Code's are here, Codex's in
// context_codex.go.

// AgentContext is the model context at the end of path for a dialect that
// is not pi's (SPEC §3.4–3.6, FORMATS.md §1.9, §2.5, §3.2): path is the
// entries from a root to the leaf, root first, as PathTo returns them, each
// with its Raw line. For pi and plain it is BuildContext(path).
//
//   - messages: every entry's line as stored; keptEntryIds the L<line> ids;
//     thinkingLevel "off", model null (the log records neither).
//   - claude: the message of each user and assistant entry on the path (after
//     a compaction the path starts at its compact_boundary root), and for a
//     tool_use block on the path whose tool_result is on no path entry, the
//     child of the tool_use line that holds that tool_result, right after the
//     tool_use line (parallel tool calls, FORMATS.md §1.9); one line answering
//     several calls is taken once, and a child whose line is not what it
//     should be is passed over, as a broken branch elsewhere never stops a
//     path (SPEC §4). children(id) gives the children of entry id in file
//     order, with Raw for user entries (a nil children: none). The model
//     is {provider:"anthropic", modelId: the model of the last assistant
//     message on the path} ("<synthetic>", Claude Code's own notices, is no
//     model); thinkingLevel "off", as Claude Code's lines record no thinking
//     setting.
//   - codex: CodexContext(path, header).
//
// Errors: bad_line for a line the rules need that is not a JSON object (the
// reader lets none through).
func AgentContext(d Dialect, path []FileEntry, children func(id string) []FileEntry, header json.RawMessage) (*Context, error) {
	switch d {
	case jsonl.Messages:
		c := emptyContext(d)
		for i := range path {
			c.Messages = append(c.Messages, jsonl.RulesOf(d).Message(path[i].Type, path[i].Raw))
			c.KeptEntryIDs = append(c.KeptEntryIDs, path[i].ID)
		}
		return c, nil
	case jsonl.Claude:
		return claudeContext(path, children)
	case jsonl.Codex:
		return CodexContext(path, header)
	}
	return BuildContext(path)
}

// emptyContext is a context without messages for dialect d.
func emptyContext(d Dialect) *Context {
	return &Context{Dialect: d, ThinkingLevel: json.RawMessage(`"off"`), Messages: []json.RawMessage{}, KeptEntryIDs: []string{}}
}

// claudeContext is AgentContext for the claude dialect.
func claudeContext(path []FileEntry, children func(id string) []FileEntry) (*Context, error) {
	c := emptyContext(jsonl.Claude)
	msgs := make([]*claudeMsg, len(path))
	answered := map[string]bool{} // tool_use ids with a tool_result on the path
	for i := range path {
		e := &path[i]
		if e.Type != "user" && e.Type != "assistant" {
			continue
		}
		m, err := readClaudeMessage(e)
		if err != nil {
			return nil, err
		}
		msgs[i] = m
		for _, id := range m.results {
			answered[id] = true
		}
		if e.Type == "assistant" && len(m.model) > 0 && m.model[0] == '"' && jsString(m.model) != "<synthetic>" {
			c.Model = &Model{Provider: json.RawMessage(`"anthropic"`), ModelID: m.model}
		}
	}
	for i, m := range msgs {
		if m == nil {
			continue
		}
		c.Messages = append(c.Messages, m.raw)
		c.KeptEntryIDs = append(c.KeptEntryIDs, path[i].ID)
		if path[i].Type != "assistant" || children == nil {
			continue
		}
		for _, id := range m.uses {
			if answered[id] {
				continue
			}
			for _, k := range children(path[i].ID) {
				if k.Type != "user" {
					continue
				}
				// A child off the path that is not what it should be holds no
				// result: it does not stop the path (SPEC §4).
				r, err := readClaudeMessage(&k)
				if err != nil || !slices.Contains(r.results, id) {
					continue
				}
				c.Messages = append(c.Messages, r.raw)
				c.KeptEntryIDs = append(c.KeptEntryIDs, k.ID)
				for _, id := range r.results { // one line answering two calls is taken once
					answered[id] = true
				}
				break
			}
		}
	}
	return c, nil
}

// claudeMsg is what claudeContext reads of a Claude user or assistant
// entry: its message as stored (a sub-slice of the line), the message's
// model, and the ids of its tool_use blocks and of the calls its
// tool_result blocks answer, in order (a string content has none).
type claudeMsg struct {
	raw, model    json.RawMessage
	uses, results []string
}

// readClaudeMessage reads the message of the Claude entry e, going over
// the line once, the message once more and its content twice (a 50 MB
// image is never copied nor decoded, SPEC §2.8).
func readClaudeMessage(e *FileEntry) (*claudeMsg, error) {
	o, ok := objectFields(e.Raw)
	if !ok {
		return nil, errs.New(errs.CodeBadLine, e.Type+" entry is not a JSON object").At(e.Line, e.Offset)
	}
	raw := o["message"]
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errs.New(errs.CodeBadLine, e.Type+" entry without a message object").At(e.Line, e.Offset)
	}
	mf, _ := objectFields(raw)
	m := &claudeMsg{raw: raw, model: mf["model"]}
	content := mf["content"]
	if len(content) == 0 || content[0] != '[' {
		return m, nil
	}
	var blocks []struct {
		Type      any `json:"type"`
		ID        any `json:"id"`
		ToolUseID any `json:"tool_use_id"`
	}
	_ = json.Unmarshal(content, &blocks) // a block that is no object gives nothing
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			if id, ok := b.ID.(string); ok {
				m.uses = append(m.uses, id)
			}
		case "tool_result":
			if id, ok := b.ToolUseID.(string); ok {
				m.results = append(m.results, id)
			}
		}
	}
	return m, nil
}

// contextLine reports whether the context rules of dialect d read the line
// of an entry of type typ and role role (AgentContext, BuildContext).
func contextLine(d Dialect, typ, role string) bool {
	switch d {
	case jsonl.Messages:
		return true
	case jsonl.Claude:
		return typ == "user" || typ == "assistant"
	case jsonl.Codex:
		return typ == "response_item" || typ == "compacted" || typ == "turn_context" ||
			typ == "event_msg" && role == "thread_rolled_back"
	}
	return contextTypes[typ]
}
