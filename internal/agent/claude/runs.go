package claude

import (
	"encoding/json"
	"strings"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// Runs links the sub-agent runs of a Claude Code session to the tool calls
// that started them. entries are the session's entries in file order,
// with Raw for user and assistant entries (the others may have none). The
// rules, and where they come from (FORMATS.md §1.6):
//
//   - A tool_use block named Task or Agent starts a run; its input.prompt
//     is what the sub-agent is told.
//   - Inline runs (Claude Code 1.0): a sidechain root (isSidechain: true,
//     parentUuid null) that is a user line belongs to the call whose
//     prompt equals the root's text (a string content, or its text blocks
//     joined), the first such call in file order not yet taken; the
//     corpus file fe5e1c67 pairs its five roots so, with three calls made
//     in parallel and answered in another order. A root no prompt matches
//     is a run without a call. A file whose entries are all sidechains is a
//     sub-agent's own file: its root is no inline run.
//   - Runs in a file of their own (Claude Code 2.0, 2.1): the user line
//     holding the call's single tool_result carries toolUseResult.agentId;
//     the run is the session agent-<agentId> (claude-code-log's
//     ef958aa1 line 144; the corpus's 29ccd257 and its
//     subagents/agent-a2271d1.jsonl).
//
// The runs come in the order of their calls, then the roots without one
// in file order. A line that is not what a rule expects gives nothing.
func Runs(entries []jsonl.Entry) []kit.Run {
	var runs []kit.Run
	byPrompt := map[string][]int{} // prompt -> runs of calls with it, in file order
	byUse := map[string]int{}      // tool_use id -> its run
	main := false                  // an entry that is no sidechain: inline runs are possible
	for i := range entries {
		main = main || !entries[i].Sidechain
	}
	for i := range entries {
		e := &entries[i]
		switch {
		case e.Type == "assistant":
			for _, u := range taskUses(e.Raw) {
				byUse[u.id] = len(runs)
				byPrompt[u.prompt] = append(byPrompt[u.prompt], len(runs))
				runs = append(runs, kit.Run{Call: e.ID, ToolUseID: u.id})
			}
		case e.Type == "user" && e.Root && e.Sidechain && main:
			text, ok := userText(e.Raw)
			if ok {
				if q := byPrompt[text]; len(q) > 0 {
					runs[q[0]].Root = e.ID
					byPrompt[text] = q[1:]
					continue
				}
			}
			runs = append(runs, kit.Run{Root: e.ID})
		case e.Type == "user":
			if use, agentID := resultAgent(e.Raw); agentID != "" {
				if r, ok := byUse[use]; ok && runs[r].Root == "" && runs[r].Session == "" {
					runs[r].Session = "agent-" + agentID
				}
			}
		}
	}
	out := runs[:0:0]
	for _, r := range runs { // calls first, then roots without one
		if r.Call != "" {
			out = append(out, r)
		}
	}
	for _, r := range runs {
		if r.Call == "" {
			out = append(out, r)
		}
	}
	return out
}

type taskUse struct{ id, prompt string }

// taskUses are the Task and Agent tool_use blocks of an assistant line.
func taskUses(raw []byte) []taskUse {
	var line struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &line) != nil || len(line.Message.Content) == 0 || line.Message.Content[0] != '[' {
		return nil
	}
	var blocks []struct {
		Type  any `json:"type"`
		ID    any `json:"id"`
		Name  any `json:"name"`
		Input struct {
			Prompt any `json:"prompt"`
		} `json:"input"`
	}
	_ = json.Unmarshal(line.Message.Content, &blocks)
	var out []taskUse
	for _, b := range blocks {
		id, _ := b.ID.(string)
		prompt, _ := b.Input.Prompt.(string)
		if b.Type == "tool_use" && (b.Name == "Task" || b.Name == "Agent") && id != "" {
			out = append(out, taskUse{id, prompt})
		}
	}
	return out
}

// userText is the text of a user line: its content string, or its text
// blocks joined by "\n"; ok false when it has neither.
func userText(raw []byte) (string, bool) {
	var line struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &line) != nil || len(line.Message.Content) == 0 {
		return "", false
	}
	c := line.Message.Content
	if c[0] == '"' {
		return kit.JSString(c), true
	}
	var blocks []struct {
		Type any `json:"type"`
		Text any `json:"text"`
	}
	if json.Unmarshal(c, &blocks) != nil {
		return "", false
	}
	var parts []string
	for _, b := range blocks {
		if t, ok := b.Text.(string); ok && b.Type == "text" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}

// resultAgent is the tool_use id a user line's single tool_result answers
// and the string toolUseResult.agentId beside it; "" when the line has no
// such pair (a line answering two calls names no one run).
func resultAgent(raw []byte) (use, agentID string) {
	var line struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		ToolUseResult struct {
			AgentID any `json:"agentId"`
		} `json:"toolUseResult"`
	}
	if json.Unmarshal(raw, &line) != nil {
		return "", ""
	}
	id, _ := line.ToolUseResult.AgentID.(string)
	if id == "" || len(line.Message.Content) == 0 || line.Message.Content[0] != '[' {
		return "", ""
	}
	var blocks []struct {
		Type      any `json:"type"`
		ToolUseID any `json:"tool_use_id"`
	}
	_ = json.Unmarshal(line.Message.Content, &blocks)
	n := 0
	for _, b := range blocks {
		if b.Type == "tool_result" {
			n++
			use, _ = b.ToolUseID.(string)
		}
	}
	if n != 1 || use == "" {
		return "", ""
	}
	return use, id
}
