package archive

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/grove-sessions/grove/jsonl"
)

// previewAgent is the unclipped preview of a committed line of the
// messages, claude or codex dialect (jsonl/dialect.go names the shapes):
//
//   - messages: the line is a chat message; its text, else its tool_use
//     blocks ("[tool_use bash] ls"), else its tool_result blocks
//     ("[tool_result] …", "[tool_result error] …"), else its thinking;
//   - claude: user and assistant lines as a message, a user line's CLI
//     wrapper tags hidden (FORMATS.md §1.4: "/clear args", "! cmd" for
//     bash mode, a command's output without its tags), isMeta lines marked
//     "[meta]" and the compaction summary "[compact summary]"; a
//     compact_boundary is "compaction (continues from <logicalParentUuid>)",
//     another system line its content, a progress line
//     "[progress hook <name>] <command>", anything else "[<type>]";
//   - codex: a response_item by its payload type (message text by role,
//     "[function_call exec_command] {...}", "[function_call_output] …",
//     "(reasoning) <summary>"), an event_msg "[user_message] …",
//     turn_context "[turn_context <model>]", compacted "[compacted] <message>";
//     a legacy bare item is read as a response_item's payload.
//
// A field of an unexpected type is left out; a line that is no JSON object
// gives "".
func previewAgent(d Dialect, raw []byte) string {
	switch d {
	case jsonl.Messages:
		var m pvChat
		if !decodeLoose(raw, &m) {
			return ""
		}
		if m.Content == nil {
			// A string content is a type error above; decoded alone.
			var s struct {
				Content *string `json:"content"`
			}
			if decodeLoose(raw, &s) && s.Content != nil {
				return *s.Content
			}
		}
		return chatPreview(m.Content, false)
	case jsonl.Claude:
		return claudePreview(raw)
	}
	return codexPreview(raw)
}

// decodeLoose decodes raw into v, skipping fields of an unexpected type;
// false when raw is no JSON object.
func decodeLoose(raw []byte, v any) bool {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		return errors.As(err, &te)
	}
	return true
}

// pvChat is an Anthropic Messages API message: a messages-log line, or a
// Claude line's message, its blocks decoded in the same pass as the line
// (nil when the content is a string: a type error, decoded once more
// alone).
type pvChat struct {
	Role    string        `json:"role"`
	Content []pvChatBlock `json:"content"`
}

// pvChatBlock is one content block of a chat message.
type pvChatBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking string          `json:"thinking"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
	Content  json.RawMessage `json:"content"`
	IsError  bool            `json:"is_error"`
}

// chatPreview summarizes a message's content blocks: its text; else its
// tool calls; else its tool results; else its thinking; else "[image]" for
// an image alone. claude hides the CLI's wrapper tags in text.
func chatPreview(blocks []pvChatBlock, claude bool) string {
	var texts, calls, results []string
	thinking, image := "", false
	for _, b := range blocks {
		switch b.Type {
		case "text":
			t := b.Text
			if claude {
				t = unwrapClaude(t)
			}
			texts = append(texts, t)
		case "tool_use":
			calls = append(calls, "[tool_use "+b.Name+"] "+toolInput(b.Input))
		case "tool_result":
			mark := "[tool_result] "
			if b.IsError {
				mark = "[tool_result error] "
			}
			results = append(results, mark+resultText(b.Content))
		case "thinking":
			if thinking == "" && strings.TrimSpace(b.Thinking) != "" {
				thinking = "(thinking) " + b.Thinking
			}
		case "image":
			image = true
		}
	}
	switch {
	case strings.TrimSpace(strings.Join(texts, "")) != "":
		return strings.Join(texts, " ")
	case calls != nil:
		return strings.Join(calls, "; ")
	case results != nil:
		return strings.Join(results, "; ")
	case thinking != "":
		return thinking
	case image:
		return "[image]"
	}
	return ""
}

// toolInput is a tool_use block's input: its "command" when that is a
// string (Bash, the chapter's bash), else the input as compact JSON.
func toolInput(input json.RawMessage) string {
	var in struct {
		Command *string `json:"command"`
	}
	if decodeLoose(input, &in) && in.Command != nil {
		return *in.Command
	}
	return rawJSONText(input)
}

// resultText is a tool_result's content: a string, or its text blocks
// joined ("[image]" for an image block).
func resultText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var raws []json.RawMessage
	if json.Unmarshal(content, &raws) != nil {
		return ""
	}
	var parts []string
	for _, r := range raws {
		var b pvChatBlock
		if !decodeLoose(r, &b) {
			continue
		}
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, " ")
}

// claudeWrappers are the tags Claude Code wraps around what the user did
// at its prompt (FORMATS.md §1.4): a slash command, bash mode and their
// output.
var claudeWrappers = []string{"command-name", "command-message", "command-args",
	"local-command-stdout", "local-command-stderr", "bash-input", "bash-stdout", "bash-stderr"}

// unwrapClaude shows a user text that starts with one of Claude Code's
// wrapper tags as the user saw it: a slash command as "/name args", bash
// mode as "! command", output without its tags. Other text is returned as
// it is, tags and all.
func unwrapClaude(s string) string {
	t := strings.TrimSpace(s)
	wrapped := false
	for _, tag := range claudeWrappers {
		if strings.HasPrefix(t, "<"+tag+">") {
			wrapped = true
			break
		}
	}
	if !wrapped {
		return s
	}
	if name, ok := inner(t, "command-name"); ok {
		args, _ := inner(t, "command-args")
		return strings.TrimSpace(name + " " + args)
	}
	if cmd, ok := inner(t, "bash-input"); ok {
		return "! " + cmd
	}
	for _, tag := range claudeWrappers {
		t = strings.ReplaceAll(t, "<"+tag+">", " ")
		t = strings.ReplaceAll(t, "</"+tag+">", " ")
	}
	return strings.TrimSpace(t)
}

// inner is the text between <tag> and </tag> in s.
func inner(s, tag string) (string, bool) {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return "", false
	}
	in, _, _ := strings.Cut(after, "</"+tag+">")
	return strings.TrimSpace(in), true
}

// pvClaude is what a preview reads of a Claude Code line.
type pvClaude struct {
	Type             string  `json:"type"`
	Subtype          string  `json:"subtype"`
	Content          string  `json:"content"`
	LogicalParent    string  `json:"logicalParentUuid"`
	IsMeta           bool    `json:"isMeta"`
	IsCompactSummary bool    `json:"isCompactSummary"`
	Message          *pvChat `json:"message"`
	Summary          string  `json:"summary"`
	Data             struct {
		Type      string `json:"type"`
		HookEvent string `json:"hookEvent"`
		HookName  string `json:"hookName"`
		Command   string `json:"command"`
	} `json:"data"`
	Attachment struct {
		Type string `json:"type"`
	} `json:"attachment"`
}

func claudePreview(raw []byte) string {
	var l pvClaude
	if !decodeLoose(raw, &l) {
		return ""
	}
	switch l.Type {
	case "user", "assistant":
		if l.Message == nil {
			return "[" + l.Type + "]"
		}
		t := chatPreview(l.Message.Content, l.Type == "user")
		if l.Message.Content == nil {
			var s struct {
				Message struct {
					Content *string `json:"content"`
				} `json:"message"`
			}
			if decodeLoose(raw, &s) && s.Message.Content != nil {
				t = *s.Message.Content
				if l.Type == "user" {
					t = unwrapClaude(t)
				}
			}
		}
		switch {
		case l.IsCompactSummary:
			return "[compact summary] " + t
		case l.IsMeta:
			return "[meta] " + t
		}
		return t
	case "system":
		if l.Subtype == "compact_boundary" {
			if l.LogicalParent == "" {
				return "compaction"
			}
			return "compaction (continues from " + l.LogicalParent + ")"
		}
		if strings.TrimSpace(l.Content) != "" {
			return l.Content
		}
		return strings.TrimSpace("[system " + l.Subtype + "]")
	case "progress":
		if l.Data.Type == "hook_progress" {
			name := l.Data.HookName
			if name == "" {
				name = l.Data.HookEvent
			}
			return strings.TrimSpace("[progress hook "+name+"] ") + " " + l.Data.Command
		}
		return strings.TrimSpace("[progress " + l.Data.Type + "]")
	case "attachment":
		return strings.TrimSpace("[attachment " + l.Attachment.Type + "]")
	case "summary":
		return "summary: " + l.Summary
	case "":
		return ""
	}
	return "[" + l.Type + "]"
}

// pvCodex is a Codex rollout line: the envelope, and its payload in
// pvCodexItem.
type pvCodex struct {
	Type    string       `json:"type"`
	Payload *pvCodexItem `json:"payload"`
}

// pvCodexItem is a rollout item's payload (or a legacy bare item).
type pvCodexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   []pvChatBlock   `json:"content"` // input_text, output_text, input_image items
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

func codexPreview(raw []byte) string {
	var l pvCodex
	if !decodeLoose(raw, &l) {
		return ""
	}
	p := l.Payload
	if p == nil {
		p = &pvCodexItem{}
		if l.Type != "" && decodeLoose(raw, p) {
			return codexItem(p) // a legacy bare item is its own payload
		}
	}
	switch {
	case l.Type == "response_item":
		return codexItem(p)
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

// codexItem previews a response item (FORMATS.md §2.4).
func codexItem(p *pvCodexItem) string {
	switch p.Type {
	case "message":
		t := codexText(p.Content)
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
		return "[" + p.Type + "] " + codexOutput(p.Output)
	case "local_shell_call":
		return "[local_shell_call] " + strings.Join(p.Action.Command, " ")
	case "web_search_call":
		return strings.TrimSpace("[web_search_call] " + p.Action.Query)
	case "":
		return ""
	}
	return "[" + p.Type + "]"
}

// codexText joins the text of a message's content items (input_text,
// output_text; "[image]" for input_image).
func codexText(items []pvChatBlock) string {
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

// codexOutput is a call output: a string, an object's "content" or
// "output" string, or a list of content items.
func codexOutput(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	var o struct {
		Content *string `json:"content"`
		Output  *string `json:"output"`
	}
	if decodeLoose(out, &o) {
		switch {
		case o.Content != nil:
			return *o.Content
		case o.Output != nil:
			return *o.Output
		}
	}
	var items []pvChatBlock
	if decodeLoose(out, &items) {
		if t := codexText(items); t != "" {
			return t
		}
	}
	return rawJSONText(out)
}

// jsonArgs is a function call's arguments string compacted when it holds
// JSON, else as written.
func jsonArgs(s string) string {
	if !json.Valid([]byte(s)) {
		return s
	}
	return rawJSONText(json.RawMessage(s))
}
