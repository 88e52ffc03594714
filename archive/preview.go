package archive

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// PreviewWidth is the default length of a preview, in runes.
const PreviewWidth = 72

// Preview returns a one-line summary of a committed line, at most width
// runes: the text of a message, a tool call's name and arguments, a
// summary, a label. Whitespace runs become one space. It returns "" when the
// line holds nothing readable.
func Preview(raw []byte, width int) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return clip(previewOf(m), width)
}

func previewOf(m map[string]any) string {
	str := func(k string) string { s, _ := m[k].(string); return s }
	switch str("type") {
	case "message":
		msg, _ := m["message"].(map[string]any)
		return messagePreview(msg)
	case "metadata":
		return str("key") + " = " + JSONText(m["value"])
	case "compaction", "branch_summary":
		return str("summary")
	case "label":
		if l := str("label"); l != "" {
			return "label " + str("targetId") + ": " + l
		}
		return "label " + str("targetId") + " cleared"
	case "session_info":
		return "name: " + str("name")
	case "thinking_level_change":
		return "thinking: " + str("thinkingLevel")
	case "model_change":
		return "model: " + str("provider") + "/" + str("modelId")
	case "custom_message":
		return "[" + str("customType") + "] " + contentText(m["content"])
	case "custom":
		return "[" + str("customType") + "]"
	}
	return ""
}

func messagePreview(msg map[string]any) string {
	if msg == nil {
		return ""
	}
	str := func(k string) string { s, _ := msg[k].(string); return s }
	switch str("role") {
	case "toolResult":
		return "[" + str("toolName") + "] " + contentText(msg["content"])
	case "bashExecution":
		return "$ " + str("command")
	case "assistant":
		if t := contentText(msg["content"]); strings.TrimSpace(t) != "" {
			return t
		}
		blocks, _ := msg["content"].([]any)
		var calls []string
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if bm["type"] == "toolCall" {
				calls = append(calls, fmt.Sprintf("→ %v %s", bm["name"], JSONText(bm["arguments"])))
			}
		}
		if len(calls) > 0 {
			return strings.Join(calls, "; ")
		}
		for _, b := range blocks {
			if bm, _ := b.(map[string]any); bm["type"] == "thinking" {
				t, _ := bm["thinking"].(string)
				return "(thinking) " + t
			}
		}
		return ""
	}
	if t := contentText(msg["content"]); t != "" {
		return t
	}
	return str("summary")
}

// contentText joins the text blocks of a content value (a string or an
// array of blocks). Images and other data blocks are left out.
func contentText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
				if t, ok := bm["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
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
