package main

import (
	"fmt"

	"github.com/grove-sessions/grove/archive"
)

// What `grove tree` shows of sub-agent runs (archive.Runs): a mark on the
// call that started each run and on each inline run's first entry, and a
// line under the header of a sub-agent session naming the call that
// started it.

// runLink is what one entry of the tree says of a sub-agent run: a call's
// run (Root or Session) or a run's call (Call, "" when none names it).
type runLink struct {
	call, toolUseID string
	root            string // a call's inline run
	session         string // a call's run in a session of its own
	indexed         bool   // that session is in the index
	isRoot          bool   // the entry is an inline run's first entry
}

// runLinks are the links of t's entries, by entry id; nil when t has none.
func runLinks(t *archive.Tree) map[string]runLink {
	if t.Runs == nil || len(t.Runs.Runs) == 0 {
		return nil
	}
	out := map[string]runLink{}
	for _, r := range t.Runs.Runs {
		if r.Call != "" && (r.Root != "" || r.SessionID != "") {
			out[r.Call] = runLink{root: r.Root, session: r.SessionID, indexed: r.Session != nil}
		}
		if r.Root != "" {
			out[r.Root] = runLink{call: r.Call, toolUseID: r.ToolUseID, isRoot: true}
		}
	}
	return out
}

// mark is the link as `grove tree` draws it after an entry.
func (l runLink) mark() string {
	switch {
	case l.isRoot && l.call == "":
		return "⇠ sub-agent run: no Task call's prompt is its text"
	case l.isRoot:
		return "⇠ sub-agent run of Task call " + idCell(l.call)
	case l.root != "":
		return "⇢ sub-agent run " + idCell(l.root)
	case l.indexed:
		return "⇢ sub-agent " + idCell(l.session)
	default:
		return "⇢ sub-agent " + idCell(l.session) + " (not indexed)"
	}
}

// spawnedByLine is the line under a sub-agent session's header naming the
// session and call that started it; "" when t's session is none's.
func spawnedByLine(t *archive.Tree) string {
	if t.Runs == nil || t.Runs.SpawnedBy == nil {
		return ""
	}
	b := t.Runs.SpawnedBy
	return fmt.Sprintf("⇠ sub-agent run of session %s, Task call %s", cell(b.Session.SessionID), idCell(b.Call))
}

// writeRunJSON writes the "run" member of a tree node whose entry links
// a sub-agent run (--json): {"root"} or {"session","path"} on a call,
// {"call","tool_use_id"} (null when no call names it) on an inline run's
// first entry. Nothing for other entries.
func (jw *treeJSON) writeRunJSON(id string) {
	l, ok := jw.links[id]
	if !ok {
		return
	}
	w := jw.w
	switch {
	case l.isRoot:
		w.WriteString(`,"run":{"call":`)
		jw.strOrNull(l.call)
		w.WriteString(`,"tool_use_id":`)
		jw.strOrNull(l.toolUseID)
	case l.root != "":
		w.WriteString(`,"run":{"root":`)
		jw.str(l.root)
	default:
		w.WriteString(`,"run":{"session":`)
		jw.str(l.session)
		fmt.Fprintf(w, `,"indexed":%t`, l.indexed)
	}
	w.WriteString("}")
}

// writeSpawnedByJSON writes the document's "spawned_by" member for a
// sub-agent session: {"session","call","tool_use_id"}.
func (jw *treeJSON) writeSpawnedByJSON() {
	t := jw.t
	if t.Runs == nil || t.Runs.SpawnedBy == nil {
		return
	}
	b := t.Runs.SpawnedBy
	jw.w.WriteString(`,"spawned_by":{"session":`)
	jw.str(b.Session.SessionID)
	jw.w.WriteString(`,"call":`)
	jw.str(b.Call)
	jw.w.WriteString(`,"tool_use_id":`)
	jw.str(b.ToolUseID)
	jw.w.WriteString("}")
}
