package archive

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/jsonl"
)

// pi's wrapper texts (pi-coding-agent, core/messages.ts): what a model reads
// in place of a compaction or branch summary. The compaction suffix starts
// with a newline, the branch one does not.
const (
	compactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSummarySuffix = "\n</summary>"
	branchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSummarySuffix     = "</summary>"
)

// ForLLM returns the context as a model receives it (SPEC §4.1 --llm, pi's
// convertToLlm): user, assistant and toolResult messages as they are;
// bashExecution, custom (hookMessage before pi version 3), branchSummary and
// compactionSummary become {role: "user", content: [{type: "text", text}],
// timestamp} with pi's wrapper texts (a custom message keeps its content
// blocks, a string content becomes one text block); a bashExecution with
// excludeFromContext (pi's !! prefix) is dropped, and so is a message of
// any other role, as pi drops it (hookMessage in a version 3 file too: pi
// renames it only when it migrates a version 2 file). KeptEntryIDs follow
// the messages kept. Settings are shared with c, not copied.
//
// The messages, claude and codex dialects hold what the model received
// (Anthropic and Responses API messages): ForLLM returns a copy of c with
// the same messages.
func (c *Context) ForLLM() *Context {
	switch c.Dialect {
	case jsonl.Messages, jsonl.Claude, jsonl.Codex:
		out := *c
		return &out
	}
	out := &Context{ThinkingLevel: c.ThinkingLevel, Model: c.Model, Version: c.Version, Messages: []json.RawMessage{}, KeptEntryIDs: []string{}}
	for i, raw := range c.Messages {
		if m := llmMessage(raw, c.Version >= 3); m != nil {
			out.Messages = append(out.Messages, m)
			out.KeptEntryIDs = append(out.KeptEntryIDs, c.KeptEntryIDs[i])
		}
	}
	return out
}

// llmMessage is one message of ForLLM, or nil when a model does not get it;
// v3 says the file is pi version 3 or later, where hookMessage is no role.
func llmMessage(raw json.RawMessage, v3 bool) json.RawMessage {
	m, ok := objectFields(raw)
	if !ok {
		return nil
	}
	user := func(content json.RawMessage) json.RawMessage {
		return marshalOrdered("role", json.RawMessage(`"user"`), "content", content, "timestamp", m["timestamp"])
	}
	text := func(s string) json.RawMessage {
		return marshalOrdered("type", json.RawMessage(`"text"`), "text", jsonText(s))
	}
	role := jsString(m["role"])
	if role == "hookMessage" && v3 {
		return nil
	}
	switch role {
	case "user", "assistant", "toolResult":
		return raw
	case "bashExecution":
		if truthy(m["excludeFromContext"]) {
			return nil
		}
		return user(wrap(text(bashExecutionText(m))))
	case "custom", "hookMessage":
		c := m["content"]
		if len(c) > 0 && c[0] == '"' {
			var s string
			_ = json.Unmarshal(c, &s)
			c = wrap(text(s))
		}
		return user(c)
	case "branchSummary":
		return user(wrap(text(branchSummaryPrefix + jsString(m["summary"]) + branchSummarySuffix)))
	case "compactionSummary":
		return user(wrap(text(compactionSummaryPrefix + jsString(m["summary"]) + compactionSummarySuffix)))
	}
	return nil
}

// wrap makes a one-element JSON array.
func wrap(v json.RawMessage) json.RawMessage {
	return append(append(json.RawMessage{'['}, v...), ']')
}

// bashExecutionText is pi's bashExecutionToText: what a model reads for a
// command the user ran.
func bashExecutionText(m map[string]json.RawMessage) string {
	var b strings.Builder
	b.WriteString("Ran `" + jsString(m["command"]) + "`\n")
	if truthy(m["output"]) {
		b.WriteString("```\n" + jsString(m["output"]) + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	code := m["exitCode"]
	if truthy(m["cancelled"]) {
		b.WriteString("\n\n(command cancelled)")
	} else if code != nil && string(code) != "null" && !isZero(code) {
		b.WriteString("\n\nCommand exited with code " + jsString(code))
	}
	if truthy(m["truncated"]) && truthy(m["fullOutputPath"]) {
		b.WriteString("\n\n[Output truncated. Full output: " + jsString(m["fullOutputPath"]) + "]")
	}
	return b.String()
}

// truthy is JavaScript's truthiness of a JSON value; a missing value
// (nil) is undefined, which is falsy.
func truthy(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0, string(v) == "null", string(v) == "false", string(v) == `""`:
		return false
	case isNumber(v):
		f, err := strconv.ParseFloat(string(v), 64)
		return err != nil || f != 0
	}
	return true
}

// isZero reports whether v is the JSON number 0 (JavaScript's v === 0).
func isZero(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	if !isNumber(v) {
		return false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return err == nil && f == 0
}

func isNumber(v []byte) bool { return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) }

// jsString is JavaScript's String(v) for a JSON value, as a template
// literal ${v} writes it: a string as it is, undefined for a missing value,
// numbers as JavaScript prints them, objects as "[object Object]", arrays
// as their elements joined by commas.
func jsString(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0:
		return "undefined"
	case v[0] == '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return s
	case v[0] == '{':
		return "[object Object]"
	case v[0] == '[':
		var items []json.RawMessage
		_ = json.Unmarshal(v, &items)
		parts := make([]string, len(items))
		for i, it := range items {
			if s := string(bytes.TrimSpace(it)); s != "null" {
				parts[i] = jsString(it)
			}
		}
		return strings.Join(parts, ",")
	case isNumber(v):
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return string(v)
		}
		return jsNumber(f)
	}
	return string(v) // true, false, null
}

// jsNumber formats f as JavaScript's Number.prototype.toString does:
// plain digits from 1e-6 up to 1e21, exponent notation beyond.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}
