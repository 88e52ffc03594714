package codex

import (
	"encoding/json"
	"strings"

	"github.com/grove-sessions/grove/internal/agent/kit"
)

// pvLine is a Codex rollout line: the envelope, and its payload in
// pvItem.
type pvLine struct {
	Type    string  `json:"type"`
	Payload *pvItem `json:"payload"`
}

// pvItem is a rollout item's payload (or a legacy bare item).
type pvItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   []kit.ChatBlock `json:"content"` // input_text, output_text, input_image items
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Message string `json:"message"`
	Text    string `json:"text"`
	Model   string `json:"model"`
	Action  struct {
		Command []string `json:"command"`
		Query   string   `json:"query"`
	} `json:"action"`
}

// Preview is the unclipped preview of a rollout line (FORMATS.md §2.4): a
// response_item by its payload type (message text by role,
// "[function_call exec_command] {...}", "[function_call_output] …",
// "(reasoning) <summary>"), an event_msg "[user_message] …", turn_context
// "[turn_context <model>]", compacted "[compacted] <message>", another type
// "[<type>]"; a legacy bare item is read as a response_item's payload. A
// field of an unexpected type is left out; a line that is no JSON object
// gives "".
func Preview(raw []byte) string {
	var l pvLine
	if !kit.DecodeLoose(raw, &l) {
		return ""
	}
	p := l.Payload
	if p == nil {
		p = &pvItem{}
		if l.Type != "" && kit.DecodeLoose(raw, p) {
			return item(p) // a legacy bare item is its own payload
		}
	}
	switch {
	case l.Type == "response_item":
		return item(p)
	case l.Type == "event_msg":
		t := p.Message
		if t == "" {
			t = p.Text
		}
		return strings.TrimSpace("[" + p.Type + "] " + t)
	case l.Type == "turn_context":
		return strings.TrimSpace("[turn_context " + p.Model + "]")
	case l.Type == "compacted":
		return strings.TrimSpace("[compacted] " + p.Message)
	case l.Type == "":
		return ""
	}
	return "[" + l.Type + "]"
}

// item previews a response item (FORMATS.md §2.4).
func item(p *pvItem) string {
	switch p.Type {
	case "message":
		t := text(p.Content)
		if p.Role == "user" || p.Role == "assistant" {
			return t
		}
		return "[" + p.Role + "] " + t
	case "reasoning":
		var parts []string
		for _, s := range p.Summary {
			parts = append(parts, s.Text)
		}
		return strings.TrimSpace("(reasoning) " + strings.Join(parts, " "))
	case "function_call":
		return "[function_call " + p.Name + "] " + jsonArgs(p.Arguments)
	case "custom_tool_call":
		return "[custom_tool_call " + p.Name + "] " + p.Input
	case "function_call_output", "custom_tool_call_output", "tool_search_call_output":
		return "[" + p.Type + "] " + output(p.Output)
	case "local_shell_call":
		return "[local_shell_call] " + strings.Join(p.Action.Command, " ")
	case "web_search_call":
		return strings.TrimSpace("[web_search_call] " + p.Action.Query)
	case "":
		return ""
	}
	return "[" + p.Type + "]"
}

// text joins the text of a message's content items (input_text,
// output_text; "[image]" for input_image).
func text(items []kit.ChatBlock) string {
	var parts []string
	for _, b := range items {
		switch b.Type {
		case "input_text", "output_text", "text":
			parts = append(parts, b.Text)
		case "input_image":
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, " ")
}

// output is a call output: a string, an object's "content" or
// "output" string, or a list of content items.
func output(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	var o struct {
		Content *string `json:"content"`
		Output  *string `json:"output"`
	}
	if kit.DecodeLoose(out, &o) {
		switch {
		case o.Content != nil:
			return *o.Content
		case o.Output != nil:
			return *o.Output
		}
	}
	var items []kit.ChatBlock
	if kit.DecodeLoose(out, &items) {
		if t := text(items); t != "" {
			return t
		}
	}
	return kit.RawJSONText(out)
}

// jsonArgs is a function call's arguments string compacted when it holds
// JSON, else as written.
func jsonArgs(s string) string {
	if !json.Valid([]byte(s)) {
		return s
	}
	return kit.RawJSONText(json.RawMessage(s))
}
