package pi

import (
	"bytes"
	"encoding/json"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// ContextTypes are the entry types BuildContext reads the line of; every
// other type (label, session_info, custom, usage, unknown types) gives no
// message and changes no setting, so its line need not be read.
var ContextTypes = map[string]bool{
	"message": true, "thinking_level_change": true, "model_change": true,
	"compaction": true, "custom_message": true, "branch_summary": true,
	"context_edit": true,
}

// Context is BuildContext over in.Path for a session of dialect d (pi, or
// plain, which shares pi's rules), with in.Version as the context's
// version. Errors: BuildContext's.
func Context(d jsonl.Dialect, in kit.ContextInput) (*kit.Context, error) {
	c, err := BuildContext(in.Path, in.Version)
	if err != nil {
		return nil, err
	}
	c.Dialect, c.Version = d, in.Version
	return c, nil
}

// BuildContext is SPEC §4.1 over path, pi's buildSessionContext (pi 1.6:
// buildSessionProjection): path is the entries from a root to the leaf,
// root first, as PathTo returns them, of a session of pi version version
// (0 for plain). Raw is needed for the types in ContextTypes (the others
// may have a nil Raw); a compaction's FirstKept is its firstKeptEntryId as
// the reader resolved it (pi version 1: from firstKeptEntryIndex, §3.2).
//
// The rules, pi's:
//   - thinkingLevel starts "off"; every thinking_level_change overrides it.
//     model starts nil; a model_change sets {provider, modelId}, an
//     assistant message {provider, model}; the later one wins.
//   - The context entries are the path, or, when it has a compaction, the
//     last one, then the entries from its firstKeptEntryId (when it has
//     one and that entry is on the path before it; otherwise none, SPEC
//     §3.2) up to it, less the role "system" messages among them, then
//     every entry after it.
//   - Each context entry gives its messages (entryMessages): a message its
//     message as stored (null or missing content filled in: "" for role
//     system, [] for user, assistant and toolResult); a custom_message
//     {role: "custom", customType, content (null or missing: []), display,
//     details, timestamp}; a branch_summary with a summary (JavaScript-
//     truthy) {role: "branchSummary", summary, fromId, timestamp}; the
//     first context entry, the compaction, its systemMessage (when truthy)
//     then {role: "compactionSummary", summary, tokensBefore, timestamp}.
//     Nothing else gives a message, an older compaction among the kept
//     entries included. Timestamps of made messages are the entry's time
//     in Unix milliseconds (null when it has none).
//   - A context_edit among the context entries edits the messages of the
//     entry its targetId names, wherever that entry is among them (before
//     or after the edit); the last edit of an entry wins (applyEdit). An
//     edit elsewhere on the path, or of an entry that is not a context
//     entry, changes nothing; in a version 1 file an edit names no entry.
//
// The plain dialect has no compaction and no context_edit, and its
// messages always carry content, so its context is MessagesOnPath.
// Errors: bad_line for a line that is not a JSON object, a message entry
// without a message object (neither passes the reader), or a context_edit
// without a replacement that reaches a message it would edit (pi throws a
// TypeError there).
func BuildContext(path []jsonl.Entry, version int) (*kit.Context, error) {
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
	entries := contextEntries(path, compaction)
	edits := lastEdits(path, fields, entries, version)
	for n, i := range entries {
		e := &path[i]
		if e.Type == "compaction" && n > 0 {
			continue // an older compaction among the kept entries
		}
		msgs := entryMessages(e, fields[i])
		if j, ok := edits[e.ID]; ok {
			var err error
			if msgs, err = applyEdit(msgs, &path[j], fields[j], editableRoles(e, version)); err != nil {
				return nil, err
			}
		}
		for _, m := range msgs {
			c.Messages = append(c.Messages, m)
			c.KeptEntryIDs = append(c.KeptEntryIDs, e.ID)
		}
	}
	return c, nil
}

// contextEntries are the indexes on path of its context entries, in the
// order they give messages (pi's buildContextEntries): every entry when
// compaction is -1; else the compaction at index compaction, the entries
// from its FirstKept up to it less role "system" messages, then the
// entries after it. path needs ID, Type, Role and FirstKept only.
func contextEntries(path []jsonl.Entry, compaction int) []int {
	out := make([]int, 0, len(path))
	if compaction < 0 {
		for i := range path {
			out = append(out, i)
		}
		return out
	}
	out = append(out, compaction)
	kept := false
	for i := 0; i < compaction; i++ {
		e := &path[i]
		if e.ID == path[compaction].FirstKept {
			kept = true
		}
		if kept && (e.Type != "message" || e.Role != "system") {
			out = append(out, i)
		}
	}
	for i := compaction + 1; i < len(path); i++ {
		out = append(out, i)
	}
	return out
}

// lastCompaction is the index of the last compaction on path, -1 for none.
func lastCompaction(path []jsonl.Entry) int {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == "compaction" {
			return i
		}
	}
	return -1
}

// entryMessages are the messages entry e gives in a context
// (sessionEntryToContextMessages, SPEC §4.1), nil for none; o is e's line
// decoded one level deep (nil for types that give none). A compaction
// gives its messages as the first context entry only (BuildContext).
func entryMessages(e *jsonl.Entry, o map[string]json.RawMessage) []json.RawMessage {
	switch e.Type {
	case "message":
		return []json.RawMessage{filled(o["message"], e.Role)}
	case "custom_message":
		content := o["content"]
		if isNull(content) {
			content = json.RawMessage("[]")
		}
		return []json.RawMessage{kit.MarshalOrdered("role", json.RawMessage(`"custom"`), "customType", o["customType"],
			"content", content, "display", o["display"], "details", o["details"], "timestamp", entryMs(e))}
	case "branch_summary":
		if !kit.Truthy(o["summary"]) {
			return nil
		}
		return []json.RawMessage{kit.MarshalOrdered("role", json.RawMessage(`"branchSummary"`), "summary", o["summary"],
			"fromId", o["fromId"], "timestamp", entryMs(e))}
	case "compaction":
		summary := kit.MarshalOrdered("role", json.RawMessage(`"compactionSummary"`), "summary", o["summary"],
			"tokensBefore", o["tokensBefore"], "timestamp", entryMs(e))
		if kit.Truthy(o["systemMessage"]) {
			return []json.RawMessage{o["systemMessage"], summary}
		}
		return []json.RawMessage{summary}
	}
	return nil
}

// filled is the message m of role role as stored, unless its content is
// null or missing: then "" for role system and [] for user, assistant and
// toolResult (pi 1.6 fills what older or hand-made files lack).
func filled(m json.RawMessage, role string) json.RawMessage {
	var fill string
	switch role {
	case "system":
		fill = `""`
	case "user", "assistant", "toolResult":
		fill = "[]"
	default:
		return m
	}
	if !isNull(jsonl.Field(m, "content")) {
		return m
	}
	return withMember(m, "content", json.RawMessage(fill))
}

// isNull reports whether v is missing or JSON null (JavaScript's v == null).
func isNull(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || string(v) == "null"
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
