package pi

import (
	"encoding/json"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// ContextTypes are the entry types BuildContext reads the line of; every
// other type (label, session_info, custom, unknown types) gives no message
// and changes no setting, so its line need not be read.
var ContextTypes = map[string]bool{
	"message": true, "thinking_level_change": true, "model_change": true,
	"compaction": true, "custom_message": true, "branch_summary": true,
}

// Context is BuildContext over in.Path for a session of dialect d (pi, or
// plain, which shares pi's rules), with in.Version as the context's
// version. Errors: BuildContext's.
func Context(d jsonl.Dialect, in kit.ContextInput) (*kit.Context, error) {
	c, err := BuildContext(in.Path)
	if err != nil {
		return nil, err
	}
	c.Dialect, c.Version = d, in.Version
	return c, nil
}

// BuildContext is SPEC §4.1 over path: the entries from a root to the leaf,
// root first, as PathTo returns them. Raw is needed for the types in
// ContextTypes (the others may have a nil Raw); a compaction's FirstKept is
// its firstKeptEntryId as the reader resolved it (pi version 1: from
// firstKeptEntryIndex, §3.2).
//
// The rules, pi's:
//   - thinkingLevel starts "off"; every thinking_level_change overrides it.
//     model starts nil; a model_change sets {provider, modelId}, an
//     assistant message {provider, model}; the later one wins.
//   - The last compaction on the path comes first as {role:
//     "compactionSummary", summary, tokensBefore, timestamp}, then the
//     entries from its firstKeptEntryId (when it has one and that entry is
//     on the path before it; otherwise none, SPEC §3.2) up to it, then
//     every entry after it.
//   - message → its message as stored; custom_message → {role: "custom",
//     customType, content, display, details, timestamp}; branch_summary with
//     a summary (JavaScript-truthy) → {role: "branchSummary", summary,
//     fromId, timestamp}; nothing else gives a message. Timestamps of made
//     messages are the entry's time in Unix milliseconds (null when it has
//     none).
//
// The plain dialect has no compaction, so its context is MessagesOnPath.
// The only error is bad_line for a line that is not a JSON object, or a
// message entry without a message object (neither passes the reader).
func BuildContext(path []jsonl.Entry) (*kit.Context, error) {
	c := &kit.Context{ThinkingLevel: json.RawMessage(`"off"`), Messages: []json.RawMessage{}, KeptEntryIDs: []string{}}
	fields := make([]map[string]json.RawMessage, len(path))
	compaction := -1
	for i := range path {
		e := &path[i]
		if !ContextTypes[e.Type] {
			continue
		}
		o, ok := kit.ObjectFields(e.Raw)
		if !ok {
			return nil, errs.New(errs.CodeBadLine, e.Type+" entry is not a JSON object").At(e.Line, e.Offset)
		}
		fields[i] = o
		switch e.Type {
		case "thinking_level_change":
			c.ThinkingLevel = kit.OrNull(o["thinkingLevel"])
		case "model_change":
			c.Model = &kit.Model{Provider: o["provider"], ModelID: o["modelId"]}
		case "message":
			m, ok := kit.ObjectFields(o["message"])
			if !ok {
				return nil, errs.New(errs.CodeBadLine, "message entry without a message object").At(e.Line, e.Offset)
			}
			if kit.JSString(m["role"]) == "assistant" {
				c.Model = &kit.Model{Provider: m["provider"], ModelID: m["model"]}
			}
		case "compaction":
			compaction = i
		}
	}
	add := func(i int) {
		if m := contextMessage(&path[i], fields[i]); m != nil {
			c.Messages = append(c.Messages, m)
			c.KeptEntryIDs = append(c.KeptEntryIDs, path[i].ID)
		}
	}
	if compaction < 0 {
		for i := range path {
			add(i)
		}
		return c, nil
	}
	cp := &path[compaction]
	o := fields[compaction]
	c.Messages = append(c.Messages, kit.MarshalOrdered(
		"role", json.RawMessage(`"compactionSummary"`), "summary", o["summary"],
		"tokensBefore", o["tokensBefore"], "timestamp", entryMs(cp)))
	c.KeptEntryIDs = append(c.KeptEntryIDs, cp.ID)
	kept := false
	for i := 0; i < compaction; i++ {
		if path[i].ID == cp.FirstKept {
			kept = true
		}
		if kept {
			add(i)
		}
	}
	for i := compaction + 1; i < len(path); i++ {
		add(i)
	}
	return c, nil
}

// contextMessage is the message entry e gives in a context (SPEC §4.1), or
// nil; o is e's line decoded one level deep (nil for types that give none).
func contextMessage(e *jsonl.Entry, o map[string]json.RawMessage) json.RawMessage {
	switch e.Type {
	case "message":
		return o["message"]
	case "custom_message":
		return kit.MarshalOrdered("role", json.RawMessage(`"custom"`), "customType", o["customType"],
			"content", o["content"], "display", o["display"], "details", o["details"], "timestamp", entryMs(e))
	case "branch_summary":
		if !kit.Truthy(o["summary"]) {
			return nil
		}
		return kit.MarshalOrdered("role", json.RawMessage(`"branchSummary"`), "summary", o["summary"],
			"fromId", o["fromId"], "timestamp", entryMs(e))
	}
	return nil
}

// entryMs is e's time in Unix milliseconds as JSON, or null when it has
// none (JavaScript's new Date(undefined).getTime() is NaN, which
// JSON.stringify writes as null).
func entryMs(e *jsonl.Entry) json.RawMessage {
	if !e.HasTime {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(e.Timestamp)
	return b
}

// ContextStart is the index on path (root first; ID, Type and FirstKept
// read) of the first entry the model's context still holds at its end
// (SPEC §4.1): the last compaction on the path keeps the entries from its
// firstKeptEntryId (the first entry before it with that id) on, or none
// before it when it names none there: the index of that entry, else of
// the compaction; -1 when the path has no compaction or starts there.
func ContextStart(path []jsonl.Entry) int {
	for i := len(path) - 1; i >= 0; i-- {
		e := &path[i]
		if e.Type != "compaction" {
			continue
		}
		if e.FirstKept != "" {
			for k := 0; k < i; k++ {
				if path[k].ID == e.FirstKept {
					return kit.StartOrNone(k)
				}
			}
		}
		return kit.StartOrNone(i)
	}
	return -1
}
