package jsondoc

import (
	"fmt"

	"github.com/grove-sessions/grove/archive"
)

// What a tree document says of sub-agent runs (archive.Runs): a "run"
// member on the call that started each run and on each inline run's first
// entry, and "spawned_by" on the document of a sub-agent session.

// RunLink is what one entry of the tree says of a sub-agent run: a call's
// run (Root or Session) or a run's call (Call, "" when none names it).
type RunLink struct {
	Call, ToolUseID string
	Root            string // a call's inline run
	Session         string // a call's run in a session of its own
	Indexed         bool   // that session is in the index
	IsRoot          bool   // the entry is an inline run's first entry
}

// RunLinks are the links of t's entries, by entry id; nil when t has none.
func RunLinks(t *archive.Tree) map[string]RunLink {
	if t.Runs == nil || len(t.Runs.Runs) == 0 {
		return nil
	}
	out := map[string]RunLink{}
	for _, r := range t.Runs.Runs {
		if r.Call != "" && (r.Root != "" || r.SessionID != "") {
			out[r.Call] = RunLink{Root: r.Root, Session: r.SessionID, Indexed: r.Session != nil}
		}
		if r.Root != "" {
			out[r.Root] = RunLink{Call: r.Call, ToolUseID: r.ToolUseID, IsRoot: true}
		}
	}
	return out
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
	case l.IsRoot:
		w.WriteString(`,"run":{"call":`)
		jw.strOrNull(l.Call)
		w.WriteString(`,"tool_use_id":`)
		jw.strOrNull(l.ToolUseID)
	case l.Root != "":
		w.WriteString(`,"run":{"root":`)
		jw.str(l.Root)
	default:
		w.WriteString(`,"run":{"session":`)
		jw.str(l.Session)
		fmt.Fprintf(w, `,"indexed":%t`, l.Indexed)
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
