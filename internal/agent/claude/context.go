package claude

import (
	"encoding/json"
	"slices"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// Context is the model context at the end of path (SPEC §3.4, FORMATS.md
// §1.9): path is the entries from a root to the leaf, root first, as
// PathTo returns them, with Raw for user and assistant entries. It is the
// message of each user and assistant entry on the path (after a
// compaction the path starts at its compact_boundary root), and for a
// tool_use block on the path whose tool_result is on no path entry, the
// child of the tool_use line that holds that tool_result, right after the
// tool_use line (parallel tool calls); one line answering several calls is
// taken once, and a child whose line is not what it should be is passed
// over, as a broken branch elsewhere never stops a path (SPEC §4).
// children(id) gives the children of entry id in file order, with Raw for
// user entries (a nil children: none). The model is {provider:
// "anthropic", modelId: the model of the last assistant message on the
// path} ("<synthetic>", Claude Code's own notices, is no model);
// thinkingLevel "off", as Claude Code's lines record no thinking setting.
//
// Errors: bad_line for a user or assistant line that is not a JSON object
// or has no message object (the reader lets none through).
func Context(path []jsonl.Entry, children func(id string) []jsonl.Entry) (*kit.Context, error) {
	c := kit.EmptyContext(jsonl.Claude)
	msgs := make([]*message, len(path))
	answered := map[string]bool{} // tool_use ids with a tool_result on the path
	for i := range path {
		e := &path[i]
		if e.Type != "user" && e.Type != "assistant" {
			continue
		}
		m, err := readMessage(e)
		if err != nil {
			return nil, err
		}
		msgs[i] = m
		for _, id := range m.results {
			answered[id] = true
		}
		if e.Type == "assistant" && len(m.model) > 0 && m.model[0] == '"' && kit.JSString(m.model) != "<synthetic>" {
			c.Model = &kit.Model{Provider: json.RawMessage(`"anthropic"`), ModelID: m.model}
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
				r, err := readMessage(&k)
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

// message is what Context reads of a Claude user or assistant entry: its
// message as stored (a sub-slice of the line), the message's model, and
// the ids of its tool_use blocks and of the calls its tool_result blocks
// answer, in order (a string content has none).
type message struct {
	raw, model    json.RawMessage
	uses, results []string
}

// readMessage reads the message of the Claude entry e, going over the line
// once, the message once more and its content twice (a 50 MB image is
// never copied nor decoded, SPEC §2.8).
func readMessage(e *jsonl.Entry) (*message, error) {
	o, ok := kit.ObjectFields(e.Raw)
	if !ok {
		return nil, errs.New(errs.CodeBadLine, e.Type+" entry is not a JSON object").At(e.Line, e.Offset)
	}
	raw := o["message"]
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errs.New(errs.CodeBadLine, e.Type+" entry without a message object").At(e.Line, e.Offset)
	}
	mf, _ := kit.ObjectFields(raw)
	m := &message{raw: raw, model: mf["model"]}
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
