package kit

import (
	"encoding/json"
	"strings"
)

// The preview of an Anthropic Messages API message (FORMATS.md §1.4,
// §3.1), which a messages-log line is and a Claude Code user or assistant
// line holds.

// Chat is an Anthropic Messages API message: a messages-log line, or a
// Claude line's message, its blocks decoded in the same pass as the line
// (nil when the content is a string: a type error, decoded once more
// alone).
type Chat struct {
	Role    string      `json:"role"`
	Content []ChatBlock `json:"content"`
}

// ChatBlock is one content block of a chat message (Codex's content items
// have the same type and text members).
type ChatBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking string          `json:"thinking"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
	Content  json.RawMessage `json:"content"`
	IsError  bool            `json:"is_error"`
}

// ChatPreview summarizes a message's content blocks: its text; else its
// tool calls ("[tool_use bash] ls"); else its tool results
// ("[tool_result] …", "[tool_result error] …"); else its thinking; else
// "[image]" for an image alone. text, when not nil, is how a text block
// is shown (Claude Code hides its wrapper tags in user text).
func ChatPreview(blocks []ChatBlock, text func(string) string) string {
	var texts, calls, results []string
	thinking, image := "", false
	for _, b := range blocks {
		switch b.Type {
		case "text":
			t := b.Text
			if text != nil {
				t = text(t)
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
	if DecodeLoose(input, &in) && in.Command != nil {
		return *in.Command
	}
	return RawJSONText(input)
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
		var b ChatBlock
		if !DecodeLoose(r, &b) {
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
