package archive

import (
	"bytes"
	"encoding/json"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// Context is what a model receives at a leaf (SPEC §4.1, pi's
// buildSessionContext): the messages, the entry each came from, the thinking
// level and the model.
type Context struct {
	// Messages are JSON objects: a `message` entry's message byte for byte
	// as stored, or a message made from a compaction, branch_summary or
	// custom_message entry (keys in pi's order; a field the entry lacks is
	// left out, as JavaScript's JSON.stringify leaves out undefined).
	Messages []json.RawMessage
	// KeptEntryIDs[i] is the id of the entry Messages[i] came from (the
	// compaction's own id for its summary).
	KeptEntryIDs []string
	// ThinkingLevel is the JSON value of the last thinking_level_change on
	// the path, or "off".
	ThinkingLevel json.RawMessage
	// Model is the last model_change or assistant message on the path, or
	// nil when there is none.
	Model *Model
	// Version is the session's pi version (0 for plain), for ForLLM: before
	// version 3 the custom role was spelled hookMessage. BuildContext leaves
	// it 0; callers that know it set it.
	Version int
	// Dialect is the session's dialect; "" (as BuildContext leaves it) is
	// pi's rules. ForLLM leaves the messages of messages, claude and codex
	// as they are: they already are what the model received.
	Dialect Dialect
}

// Model is a model as pi tracks it along a path: provider and modelId as
// the entry wrote them (an assistant message's "model" is its modelId).
type Model struct {
	Provider json.RawMessage `json:"provider,omitempty"`
	ModelID  json.RawMessage `json:"modelId,omitempty"`
}

// contextTypes are the entry types BuildContext reads the line of; every
// other type (label, session_info, custom, unknown types) gives no message
// and changes no setting, so its line need not be read.
var contextTypes = map[string]bool{
	"message": true, "thinking_level_change": true, "model_change": true,
	"compaction": true, "custom_message": true, "branch_summary": true,
}

// BuildContext is SPEC §4.1 over path: the entries from a root to the leaf,
// root first, as PathTo returns them. Raw is needed for the types in
// contextTypes (the others may have a nil Raw); a compaction's FirstKept is
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
func BuildContext(path []FileEntry) (*Context, error) {
	c := &Context{ThinkingLevel: json.RawMessage(`"off"`), Messages: []json.RawMessage{}, KeptEntryIDs: []string{}}
	fields := make([]map[string]json.RawMessage, len(path))
	compaction := -1
	for i := range path {
		e := &path[i]
		if !contextTypes[e.Type] {
			continue
		}
		o, ok := objectFields(e.Raw)
		if !ok {
			return nil, errs.New(errs.CodeBadLine, e.Type+" entry is not a JSON object").At(e.Line, e.Offset)
		}
		fields[i] = o
		switch e.Type {
		case "thinking_level_change":
			c.ThinkingLevel = orNull(o["thinkingLevel"])
		case "model_change":
			c.Model = &Model{Provider: o["provider"], ModelID: o["modelId"]}
		case "message":
			m, ok := objectFields(o["message"])
			if !ok {
				return nil, errs.New(errs.CodeBadLine, "message entry without a message object").At(e.Line, e.Offset)
			}
			if jsString(m["role"]) == "assistant" {
				c.Model = &Model{Provider: m["provider"], ModelID: m["model"]}
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
	c.Messages = append(c.Messages, marshalOrdered(
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
func contextMessage(e *FileEntry, o map[string]json.RawMessage) json.RawMessage {
	switch e.Type {
	case "message":
		return o["message"]
	case "custom_message":
		return marshalOrdered("role", json.RawMessage(`"custom"`), "customType", o["customType"],
			"content", o["content"], "display", o["display"], "details", o["details"], "timestamp", entryMs(e))
	case "branch_summary":
		if !truthy(o["summary"]) {
			return nil
		}
		return marshalOrdered("role", json.RawMessage(`"branchSummary"`), "summary", o["summary"],
			"fromId", o["fromId"], "timestamp", entryMs(e))
	}
	return nil
}

// entryMs is e's time in Unix milliseconds as JSON, or null when it has
// none (JavaScript's new Date(undefined).getTime() is NaN, which
// JSON.stringify writes as null).
func entryMs(e *FileEntry) json.RawMessage {
	if !e.HasTime {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(e.Timestamp)
	return b
}

// marshalOrdered writes a JSON object of the key/value pairs kv (string,
// json.RawMessage, ...) in that order, leaving out keys whose value is nil
// (JavaScript's undefined). Values are compacted; strings keep <, > and &
// unescaped.
func marshalOrdered(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := kv[i+1].(json.RawMessage)
		if v == nil {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(jsonText(kv[i].(string)))
		b.WriteByte(':')
		if json.Compact(&b, v) != nil {
			b.WriteString("null")
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonText is s as a JSON string, with <, > and & left as they are.
func jsonText(s string) json.RawMessage { return json.RawMessage(JSONText(s)) }

// orNull is v, or JSON null when v is missing.
func orNull(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

// objectFields decodes the JSON object raw one level deep, as json.Unmarshal
// into a map[string]json.RawMessage does (of a key given twice the last
// wins), but each value is a sub-slice of raw rather than a copy, so a
// 50 MB image in a line is not held twice (SPEC §2.8). ok is false when raw
// is not one valid JSON object (JSON null included).
func objectFields(raw []byte) (map[string]json.RawMessage, bool) {
	m := map[string]json.RawMessage{}
	if !jsonl.Members(raw, func(k string, v []byte) bool { m[k] = v; return true }) {
		return nil, false
	}
	return m, true
}
