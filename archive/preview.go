package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode"

	"github.com/grove-sessions/grove/jsonl"
)

// PreviewWidth is the default length of a preview, in runes.
const PreviewWidth = 72

// Preview returns a one-line summary of a committed line, at most width
// runes: the text of a message, a tool call's name and arguments, a
// summary, a label. Terminal escape sequences (ESC [2J, colours, OSC
// titles) are removed whole, as search text and first messages remove
// them; runs of whitespace and other C0/C1 control characters become one
// space. Bidirectional overrides stay, for the caller to show escaped. It returns "" when the
// line holds nothing readable.
//
// Preview reads raw as a pi or plain line; PreviewIn reads it in the
// session's dialect.
func Preview(raw []byte, width int) string {
	return PreviewIn(jsonl.Pi, raw, width)
}

// PreviewIn is Preview for a committed line of a session in dialect d
// (SPEC §3): pi and plain entries as Preview says, messages, claude and
// codex lines as previewAgent says (FORMATS.md §1.4, §2.4, §3.1). An unknown
// dialect is read as pi's. Width is in runes; the result is "" when the
// line holds nothing readable, one line of at most width runes otherwise.
func PreviewIn(d Dialect, raw []byte, width int) string {
	switch d {
	case jsonl.Messages, jsonl.Claude, jsonl.Codex:
		return clip(jsonl.StripEscapes(previewAgent(d, raw)), width)
	}
	return piPreview(raw, width)
}

func piPreview(raw []byte, width int) string {
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
	return clip(jsonl.StripEscapes(e.preview()), width)
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
		return e.Key + " = " + rawJSONText(e.Value)
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
				calls = append(calls, "→ "+b.Name+" "+rawJSONText(b.Arguments))
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

// rawJSONText is a raw JSON value as written, compacted; "null" when it is
// missing.
func rawJSONText(v json.RawMessage) string {
	if v == nil {
		return "null"
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// clip squeezes whitespace and cuts s to width runes, ending in "…" when cut.
func clip(s string, width int) string {
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = n > 0
			continue
		}
		if space {
			if n+1 >= width {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if n >= width-1 && width > 0 {
			b.WriteString("…")
			return b.String()
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// JSONText renders a decoded JSON value compactly for people: &, < and >
// stay as they are (json.Marshal would write \u0026 for the && of a shell
// command).
func JSONText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}
