package serve

import "github.com/grove-sessions/grove/archive"

// What the tree page shows of sub-agent runs (archive.Runs, docs/agents.md):
// a link from the call that started a run to the run (an inline run's
// first entry, or a sub-agent session's page), a link from an inline
// run's first entry back to its call, and above a sub-agent session's
// tree a link to the session and call that started it.

// runLink is a link a tree row or page shows to the other side of a
// sub-agent run: Text before the link, Label its text, Href where it goes
// ("" when the other side is in no page: a sub-agent session the index
// does not hold).
type runLink struct {
	Text, Label, Href string
}

// runLinks are the run links of the rows of t (whose session's page
// names its file as file, "" for none), by entry id.
func runLinks(t *archive.Tree, file string) map[string]*runLink {
	if t.Runs == nil || len(t.Runs.Runs) == 0 {
		return nil
	}
	sid := t.Session.SessionID
	out := map[string]*runLink{}
	for _, r := range t.Runs.Runs {
		switch {
		case r.Root != "" && r.Call != "":
			out[r.Call] = &runLink{Text: "⇢ sub-agent run", Label: r.Root, Href: entryHref(sid, r.Root, file)}
			out[r.Root] = &runLink{Text: "⇠ sub-agent run of Task call", Label: r.Call, Href: entryHref(sid, r.Call, file)}
		case r.Root != "":
			out[r.Root] = &runLink{Text: "⇠ sub-agent run: no Task call's prompt is its text"}
		case r.SessionID != "" && r.Call != "":
			l := &runLink{Text: "⇢ sub-agent", Label: r.SessionID}
			if r.Session != nil {
				l.Href = sessionHref(r.SessionID)
			}
			out[r.Call] = l
		}
	}
	return out
}

// spawnedBy is the link of a sub-agent session's page to the call of its
// parent session that started it; nil for a session that is none's.
func spawnedBy(t *archive.Tree) *runLink {
	if t.Runs == nil || t.Runs.SpawnedBy == nil {
		return nil
	}
	b := t.Runs.SpawnedBy
	return &runLink{Text: "Sub-agent run of session " + b.Session.SessionID + ", started by its Task call",
		Label: b.Call, Href: entryHref(b.Session.SessionID, b.Call)}
}
