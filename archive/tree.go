package archive

import (
	"encoding/json"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// PathTo returns the path to leafID: the entries from a root down to it,
// root first, as deep copies (SPEC §4, the chapter's pathTo).
//
// Errors, all *errs.Error:
//   - duplicate_id when any id of entries appears twice (checked over all
//     entries, before the walk);
//   - unknown_entry when no entry has id leafID;
//   - missing_parent naming the child and the parent it names;
//   - cycle naming the first id met twice on the walk.
//
// Only the chosen path is checked: a broken branch elsewhere does not stop a
// healthy path. Time and memory are O(len(entries)); there is no recursion.
func PathTo(entries []FileEntry, leafID string) ([]FileEntry, error) {
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		if _, dup := byID[e.ID]; dup {
			return nil, jsonl.DuplicateError(e.ID, entries)
		}
		byID[e.ID] = i
	}
	i, ok := byID[leafID]
	if !ok {
		return nil, jsonl.UnknownEntryError(leafID)
	}
	seen := make(map[string]struct{})
	var rev []int
	for {
		e := entries[i]
		if _, again := seen[e.ID]; again {
			walk := make([]string, 0, len(rev)+1)
			for _, k := range rev {
				walk = append(walk, entries[k].ID)
			}
			return nil, jsonl.CycleError(append(walk, e.ID), e.Line, e.Offset)
		}
		seen[e.ID] = struct{}{}
		rev = append(rev, i)
		if e.Root {
			break
		}
		j, ok := byID[e.ParentID]
		if !ok {
			return nil, jsonl.MissingParentError(e.ID, e.ParentID, e.Line, e.Offset)
		}
		i = j
	}
	path := make([]FileEntry, len(rev))
	for k, idx := range rev {
		path[len(rev)-1-k] = entries[idx].Clone()
	}
	return path, nil
}

// MessagesOnPath is PathTo followed by the message of every entry that
// carries one, in path order (SPEC §4; §3.4–3.6 for the other dialects:
// pi's and plain's "message" entries, Claude Code's user and assistant
// lines, Codex's response items and its event_msg user and agent
// messages of their own (jsonl codex_pair.go), every line of a messages
// log). Each
// message is the raw JSON value from the committed line, byte for byte:
// tool call ids, names and arguments, tool result ids, isError and details
// are never decoded and re-encoded. The result shares no memory with
// entries.
func MessagesOnPath(d Dialect, entries []FileEntry, leafID string) ([]json.RawMessage, error) {
	path, err := PathTo(entries, leafID)
	if err != nil {
		return nil, err
	}
	rules := agent.Of(d)
	var msgs []json.RawMessage
	for _, e := range path {
		if !rules.HasMessage(e.Type, e.Role) {
			continue
		}
		m := rules.Message(e.Type, e.Raw)
		if m == nil {
			return nil, errs.New(errs.CodeBadLine, e.Type+" entry without a message object").At(e.Line, e.Offset)
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// Leaves returns the entries that no entry names as parent, in file order
// (SPEC §1). With duplicate ids, a leaf is judged by id.
func Leaves(entries []FileEntry) []FileEntry {
	parents := make(map[string]struct{}, len(entries))
	for _, e := range entries {
		if !e.Root {
			parents[e.ParentID] = struct{}{}
		}
	}
	var out []FileEntry
	for _, e := range entries {
		if _, ok := parents[e.ID]; !ok {
			out = append(out, e)
		}
	}
	return out
}

// BranchPoint is an entry that two or more entries name as parent (SPEC §1).
type BranchPoint struct {
	ID       string
	Children []string // child ids in file order (SPEC §4)
}

// BranchPoints returns the branch points of entries, ordered by the file
// position of their first entry with that id; entries naming an id that is
// not there are ignored.
func BranchPoints(entries []FileEntry) []BranchPoint {
	children := Children(entries)
	var out []BranchPoint
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		if c := children[e.ID]; len(c) >= 2 {
			out = append(out, BranchPoint{ID: e.ID, Children: c})
		}
	}
	return out
}

// Children maps each parent id to its children's ids, in file order.
func Children(entries []FileEntry) map[string][]string {
	out := make(map[string][]string)
	for _, e := range entries {
		if !e.Root {
			out[e.ParentID] = append(out[e.ParentID], e.ID)
		}
	}
	return out
}

// ActiveLeaf returns the active leaf of a session of dialect d (SPEC §1),
// by its agent's rule (Traits.ActiveLeaf): the last entry in file order
// (pi's rule, LastEntry); or the leaf on the highest line among those that
// are not sidechains, else the leaf on the highest line (LastMainLeaf,
// Claude Code, SPEC §3.4). "" for a session without entries.
func ActiveLeaf(d Dialect, entries []FileEntry) string {
	if len(entries) == 0 {
		return ""
	}
	if agent.Of(d).Traits().ActiveLeaf == agent.LastMainLeaf {
		parents := make(map[string]struct{}, len(entries))
		for _, e := range entries {
			if !e.Root {
				parents[e.ParentID] = struct{}{}
			}
		}
		for _, side := range []bool{false, true} {
			for i := len(entries) - 1; i >= 0; i-- {
				e := entries[i]
				if _, named := parents[e.ID]; !named && (side || !e.Sidechain) {
					return e.ID
				}
			}
		}
	}
	return entries[len(entries)-1].ID
}
