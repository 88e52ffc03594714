package main

import (
	"fmt"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

// What `grove tree` shows of sub-agent runs (archive.Runs): a mark on the
// call that started each run and on each inline run's first entry, and a
// line under the header of a sub-agent session naming the call that
// started it.

// runMark is the link as `grove tree` draws it after an entry.
func runMark(l jsondoc.RunLink) string {
	switch {
	case l.IsRoot && l.Call == "":
		return "⇠ sub-agent run: no Task call's prompt is its text"
	case l.IsRoot:
		return "⇠ sub-agent run of Task call " + idCell(l.Call)
	case l.Root != "":
		return "⇢ sub-agent run " + idCell(l.Root)
	case l.Indexed:
		return "⇢ sub-agent " + idCell(l.Session)
	default:
		return "⇢ sub-agent " + idCell(l.Session) + " (not indexed)"
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
