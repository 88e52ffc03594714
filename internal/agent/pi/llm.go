package pi

import (
	"encoding/json"
	"strings"

	"github.com/grove-sessions/grove/internal/agent/kit"
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

// ForLLM returns the context c as a model receives it (SPEC §4.1 --llm,
// pi's convertToLlm): system (pi 1.x), user, assistant and toolResult
// messages as they are;
// bashExecution, custom (hookMessage before pi version 3), branchSummary
// and compactionSummary become {role: "user", content: [{type: "text",
// text}], timestamp} with pi's wrapper texts (a custom message keeps its
// content blocks, a string content becomes one text block); a
// bashExecution with excludeFromContext (pi's !! prefix) is dropped, and so
// is a message of any other role, as pi drops it (hookMessage in a version
// 3 file too: pi renames it only when it migrates a version 2 file).
// KeptEntryIDs follow the messages kept. Settings are shared with c, not
// copied; the result's Dialect is "" (pi's rules).
func ForLLM(c *kit.Context) *kit.Context {
	out := &kit.Context{ThinkingLevel: c.ThinkingLevel, Model: c.Model, Version: c.Version, Messages: []json.RawMessage{}, KeptEntryIDs: []string{}}
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
	m, ok := kit.ObjectFields(raw)
	if !ok {
		return nil
	}
	user := func(content json.RawMessage) json.RawMessage {
		return kit.MarshalOrdered("role", json.RawMessage(`"user"`), "content", content, "timestamp", m["timestamp"])
	}
	text := func(s string) json.RawMessage {
		return kit.MarshalOrdered("type", json.RawMessage(`"text"`), "text", kit.JSONString(s))
	}
	role := kit.JSString(m["role"])
	if role == "hookMessage" && v3 {
		return nil
	}
	switch role {
	case "system", "user", "assistant", "toolResult":
		return raw
	case "bashExecution":
		if kit.Truthy(m["excludeFromContext"]) {
			return nil
		}
		return user(kit.Wrap(text(bashExecutionText(m))))
	case "custom", "hookMessage":
		c := m["content"]
		if len(c) > 0 && c[0] == '"' {
			var s string
			_ = json.Unmarshal(c, &s)
			c = kit.Wrap(text(s))
		}
		return user(c)
	case "branchSummary":
		return user(kit.Wrap(text(branchSummaryPrefix + kit.JSString(m["summary"]) + branchSummarySuffix)))
	case "compactionSummary":
		return user(kit.Wrap(text(compactionSummaryPrefix + kit.JSString(m["summary"]) + compactionSummarySuffix)))
	}
	return nil
}

// bashExecutionText is pi's bashExecutionToText: what a model reads for a
// command the user ran.
func bashExecutionText(m map[string]json.RawMessage) string {
	var b strings.Builder
	b.WriteString("Ran `" + kit.JSString(m["command"]) + "`\n")
	if kit.Truthy(m["output"]) {
		b.WriteString("```\n" + kit.JSString(m["output"]) + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	code := m["exitCode"]
	if kit.Truthy(m["cancelled"]) {
		b.WriteString("\n\n(command cancelled)")
	} else if code != nil && string(code) != "null" && !kit.IsZero(code) {
		b.WriteString("\n\nCommand exited with code " + kit.JSString(code))
	}
	if kit.Truthy(m["truncated"]) && kit.Truthy(m["fullOutputPath"]) {
		b.WriteString("\n\n[Output truncated. Full output: " + kit.JSString(m["fullOutputPath"]) + "]")
	}
	return b.String()
}
