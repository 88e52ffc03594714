package pi

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/grove-sessions/grove/internal/agent/kit"
)

// Preview is the unclipped preview of a pi or plain entry line: a
// message's text (an assistant's tool calls "→ name {args}", else its
// thinking; a tool result "[tool] text", a bash run "$ command"), a
// metadata entry "key = value", a compaction's or branch summary's
// summary, "label <id>: <label>" ("… cleared"), "name: <name>",
// "thinking: <level>", "model: <provider>/<model>", a custom message
// "[<customType>] text", a custom entry "[<customType>]", a context edit
// (pi 1.x) "edit <targetId>: text" ("edit <targetId>: removed" for a null
// replacement), a usage entry "usage: <kind> <provider>/<model>". A field
// of an unexpected type is skipped; "" when the line is no JSON object or
// its type shows nothing.
func Preview(raw []byte) string {
	var e pvLine
	// A field of an unexpected type is skipped (UnmarshalTypeError, the
	// rest still decoded); only a line that is no JSON object gives "".
	if err := json.Unmarshal(raw, &e); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return ""
		}
	}
	// Content is mostly an array of blocks, decoded above in the same pass;
	// a string content (a type error there) is decoded once more, alone.
	if e.Message != nil && e.Message.Content == nil || e.Type == "custom_message" && e.Content == nil {
		var s struct {
			Content json.RawMessage `json:"content"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		_ = json.Unmarshal(raw, &s)
		_ = json.Unmarshal(s.Content, &e.contentText)
		if e.Message != nil {
			_ = json.Unmarshal(s.Message.Content, &e.Message.text)
		}
	}
	return e.preview()
}

// pvLine is what a preview reads of an entry line, decoded in one pass:
// strings only where they are shown, raw JSON where it is shown as JSON,
// nothing else (a tool result's details, a message's usage are skipped).
type pvLine struct {
	Type          string          `json:"type"`
	Message       *pvMessage      `json:"message"`
	Key           string          `json:"key"`
	Value         json.RawMessage `json:"value"`
	Summary       string          `json:"summary"`
	Label         string          `json:"label"`
	TargetID      string          `json:"targetId"`
	Name          string          `json:"name"`
	ThinkingLevel string          `json:"thinkingLevel"`
	Provider      string          `json:"provider"`
	ModelID       string          `json:"modelId"`
	CustomType    string          `json:"customType"`
	Content       []pvBlock       `json:"content"`
	Replacement   json.RawMessage `json:"replacement"`
	Kind          string          `json:"kind"`
	Model         string          `json:"model"`
	contentText   string          // content when it is a string
}

type pvMessage struct {
	Role     string    `json:"role"`
	ToolName string    `json:"toolName"`
	Command  string    `json:"command"`
	Summary  string    `json:"summary"`
	Content  []pvBlock `json:"content"`
	text     string    // content when it is a string
}

type pvBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// text joins the text blocks (images and other data blocks left out), or is
// str when the content was a string.
func text(blocks []pvBlock, str string) string {
	if blocks == nil {
		return str
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

func (e *pvLine) preview() string {
	switch e.Type {
	case "message":
		return e.Message.preview()
	case "metadata":
		return e.Key + " = " + kit.RawJSONText(e.Value)
	case "compaction", "branch_summary":
		return e.Summary
	case "label":
		if e.Label != "" {
			return "label " + e.TargetID + ": " + e.Label
		}
		return "label " + e.TargetID + " cleared"
	case "session_info":
		return "name: " + e.Name
	case "thinking_level_change":
		return "thinking: " + e.ThinkingLevel
	case "model_change":
		return "model: " + e.Provider + "/" + e.ModelID
	case "custom_message":
		return "[" + e.CustomType + "] " + text(e.Content, e.contentText)
	case "custom":
		return "[" + e.CustomType + "]"
	case "context_edit":
		if isNull(e.Replacement) {
			return "edit " + e.TargetID + ": removed"
		}
		var r struct {
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(e.Replacement, &r)
		var blocks []pvBlock
		var str string
		if json.Unmarshal(r.Content, &blocks) != nil {
			_ = json.Unmarshal(r.Content, &str)
		}
		return "edit " + e.TargetID + ": " + text(blocks, str)
	case "usage":
		return "usage: " + e.Kind + " " + e.Provider + "/" + e.Model
	}
	return ""
}

func (m *pvMessage) preview() string {
	if m == nil {
		return ""
	}
	switch m.Role {
	case "toolResult":
		return "[" + m.ToolName + "] " + text(m.Content, m.text)
	case "bashExecution":
		return "$ " + m.Command
	case "assistant":
		if t := text(m.Content, m.text); strings.TrimSpace(t) != "" {
			return t
		}
		var calls []string
		for _, b := range m.Content {
			if b.Type == "toolCall" {
				calls = append(calls, "→ "+b.Name+" "+kit.RawJSONText(b.Arguments))
			}
		}
		if len(calls) > 0 {
			return strings.Join(calls, "; ")
		}
		for _, b := range m.Content {
			if b.Type == "thinking" {
				return "(thinking) " + b.Thinking
			}
		}
		return ""
	}
	if t := text(m.Content, m.text); t != "" {
		return t
	}
	return m.Summary
}
