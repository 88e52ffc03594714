package pi

import (
	"bytes"
	"encoding/json"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// pi 1.x's context_edit entries (pi-coding-agent 1.6, core/session-manager:
// projectContextEntry, appendContextEdit): {"type":"context_edit",
// "targetId": id, "replacement": null | {"content": string or blocks}}
// changes what the model sees of an earlier entry without touching it.

// What a context_edit did to an entry's messages in a context
// (ContextEdits).
const (
	EditReplaced = "replaced" // their content is the edit's
	EditRemoved  = "removed"  // the model no longer sees them
)

// EditTypes are the entry types ContextEdits reads the line of: the edits
// themselves, and the entries whose messages cannot be told from their
// type and role alone.
var EditTypes = map[string]bool{"context_edit": true, "compaction": true, "branch_summary": true}

// lastEdits maps each entry id that a context_edit among the context
// entries (entries, indexes on path) names to the index on path of the
// last such edit (pi: the last per target wins). fields holds the decoded
// lines of the edits. A targetId that is no JSON string names no entry,
// and neither does any in a version 1 file (pi gives its entries random
// ids when it opens it).
func lastEdits(path []jsonl.Entry, fields []map[string]json.RawMessage, entries []int, version int) map[string]int {
	var out map[string]int
	if version == 1 {
		return out
	}
	for _, i := range entries {
		if path[i].Type != "context_edit" {
			continue
		}
		t := fields[i]["targetId"]
		if len(t) == 0 || t[0] != '"' {
			continue
		}
		var id string
		if json.Unmarshal(t, &id) != nil {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[id] = i
	}
	return out
}

// editableRoles reports which roles of the messages entry e gives an edit
// replaces the content of: user, assistant, toolResult and custom; a
// message entry's hookMessage too in a version 1 or 2 file, which pi
// renames custom when it migrates the file.
func editableRoles(e *jsonl.Entry, version int) func(role string) bool {
	old := e.Type == "message" && version >= 1 && version < 3
	return func(role string) bool {
		switch role {
		case "user", "assistant", "toolResult", "custom":
			return true
		case "hookMessage":
			return old
		}
		return false
	}
}

// roleOf is the role of the message m when it is an object whose role is
// a JSON string, else "".
func roleOf(m json.RawMessage) string {
	r := jsonl.Field(m, "role")
	if len(r) == 0 || r[0] != '"' {
		return ""
	}
	var s string
	_ = json.Unmarshal(r, &s)
	return s
}

// applyEdit is pi's projectContextEntry: the messages msgs of an entry as
// the context_edit ed (its line decoded one level deep in o) leaves them.
// A null replacement drops them all; otherwise each message of a role
// editable says gets the replacement's content (a string for an assistant
// or toolResult message becoming [{type: "text", text}]; a replacement that
// is no object, or has no content, leaves the message without one), every
// other field kept in its place, and the other messages stay as they are.
// Errors: bad_line, naming ed's line, when ed has no replacement at all and
// some message is editable (pi throws a TypeError there).
func applyEdit(msgs []json.RawMessage, ed *jsonl.Entry, o map[string]json.RawMessage, editable func(string) bool) ([]json.RawMessage, error) {
	rep, has := o["replacement"]
	if has && isNull(rep) {
		return nil, nil
	}
	var content json.RawMessage // nil: JavaScript's undefined
	if f, ok := kit.ObjectFields(rep); ok {
		content = f["content"]
	}
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		out[i] = m
		role := roleOf(m)
		if !editable(role) {
			continue
		}
		if !has {
			return nil, errNoReplacement(ed)
		}
		c := content
		if (role == "assistant" || role == "toolResult") && len(bytes.TrimSpace(c)) > 0 && bytes.TrimSpace(c)[0] == '"' {
			c = kit.Wrap(kit.MarshalOrdered("type", json.RawMessage(`"text"`), "text", c))
		}
		out[i] = withMember(m, "content", c)
	}
	return out, nil
}

// errNoReplacement is the bad_line error of a context_edit ed without a
// replacement that reaches a message it would edit.
func errNoReplacement(ed *jsonl.Entry) error {
	return errs.New(errs.CodeBadLine,
		`context_edit entry without a "replacement" (null, or an object with content): pi cannot build a context it edits`).At(ed.Line, ed.Offset)
}

// withMember is the JSON object raw with key set to v (nil: without key),
// as JavaScript's {...raw, [key]: v} and JSON.stringify write it: the key
// keeps its place when raw has it, else comes last; the other members
// keep their bytes and places (a key given twice once, at its first place
// with its last value, as JSON.parse reads it). raw itself when it is no
// object.
func withMember(raw json.RawMessage, key string, v json.RawMessage) json.RawMessage {
	members, ok := objectMembers(raw)
	if !ok {
		return raw
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for _, m := range members {
		if _, seen := vals[m.key]; !seen {
			keys = append(keys, m.key)
		}
		vals[m.key] = m.value
	}
	if _, seen := vals[key]; !seen {
		keys = append(keys, key)
	}
	vals[key] = v
	kv := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		kv = append(kv, k, vals[k])
	}
	return kit.MarshalOrdered(kv...)
}

// ContextEdits is, for the context at the end of path (root first, as
// PathTo returns it, of a session of pi version version; Raw needed for
// the types in EditTypes, ID, Type, Role and FirstKept for all), what the
// context_edit entries among its context entries did to the entries they
// name: entry id → EditRemoved when the edit drops the messages the entry
// gives, EditReplaced when it replaces the content of one of them. An
// entry an edit leaves as it was (one that gives no message, or none of a
// role an edit changes, such as a bash run, a branch summary or a system
// message under a non-null edit), or that is no context entry (summarised
// away, on another branch), is not listed. It is what BuildContext does,
// without reading the message lines. Errors: BuildContext's for an edit
// without a replacement that reaches a message it would edit.
func ContextEdits(path []jsonl.Entry, version int) (map[string]string, error) {
	fields := make([]map[string]json.RawMessage, len(path))
	for i := range path {
		if EditTypes[path[i].Type] {
			fields[i], _ = kit.ObjectFields(path[i].Raw)
		}
	}
	entries := contextEntries(path, lastCompaction(path))
	edits := lastEdits(path, fields, entries, version)
	out := map[string]string{}
	for n, i := range entries {
		e := &path[i]
		j, ok := edits[e.ID]
		if !ok || e.Type == "compaction" && n > 0 {
			continue
		}
		var roles []string
		switch e.Type {
		case "message":
			roles = []string{e.Role}
		case "custom_message":
			roles = []string{"custom"}
		default:
			for _, m := range entryMessages(e, fields[i]) {
				roles = append(roles, roleOf(m))
			}
		}
		if len(roles) == 0 {
			continue
		}
		rep, has := fields[j]["replacement"]
		if has && isNull(rep) {
			out[e.ID] = EditRemoved
			continue
		}
		editable := editableRoles(e, version)
		for _, r := range roles {
			if !editable(r) {
				continue
			}
			if !has {
				return nil, errNoReplacement(&path[j])
			}
			out[e.ID] = EditReplaced
		}
	}
	return out, nil
}
