package archive

import (
	"context"
	"errors"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/internal/agent/pi"
)

// What a context edit (pi 1.x's context_edit entry, SPEC §4.1) did to an
// entry in the context at a leaf: its content replaced, or the entry
// removed from what the model sees.
const (
	EditReplaced = pi.EditReplaced
	EditRemoved  = pi.EditRemoved
)

// ContextEdits is, for the path p (Path's answer), what the context
// edits among the context entries at p's leaf did to the entries they
// name, by the rules of the session's agent: entry id → EditReplaced or
// EditRemoved; empty for a path without an edit or a session whose agent
// has none (every one but pi). Only the lines the rules ask for are read
// back (the edits, compactions and branch summaries on p), each checked
// against its CRC-32. Errors: stale_index when a line cannot be read back
// or is no longer what the index saw; bad_line, naming the file, for an
// edit without a replacement that reaches an entry it would edit (Context
// fails there too).
func (a *Archive) ContextEdits(ctx context.Context, p *Path) (map[string]string, error) {
	ed, ok := agent.Of(p.Session.Dialect).(agent.Editor)
	if !ok || !hasEdit(ed, p.Entries) {
		return map[string]string{}, nil
	}
	path, err := readPath(p, func(e Entry) bool { return ed.EditLine(e.Type) })
	if err != nil {
		return nil, err
	}
	m, err := ed.ContextEdits(path, p.Session.Version)
	if err != nil {
		var je *errs.Error
		if errors.As(err, &je) && je.Path == "" {
			je.Path = p.Session.Path
		}
		return nil, err
	}
	return m, nil
}

// PathEdits is ContextEdits over path (root first, as PathTo returns it,
// with Raw) of a session of dialect d and pi version version: the pure
// side Archive.ContextEdits must agree with. Errors: bad_line as
// ContextEdits.
func PathEdits(d Dialect, path []FileEntry, version int) (map[string]string, error) {
	ed, ok := agent.Of(d).(agent.Editor)
	if !ok {
		return map[string]string{}, nil
	}
	return ed.ContextEdits(path, version)
}

// hasEdit reports whether some entry of entries edits others.
func hasEdit(ed agent.Editor, entries []Entry) bool {
	for _, e := range entries {
		if ed.EditEntry(e.Type) {
			return true
		}
	}
	return false
}

// markEdits sets Edited on the hits whose entry a context edit on its
// session's active path replaced or removed, as `grove context` at the
// active leaf applies them (SPEC §4.1). Only
// hits on an active path of an agent with edits can be marked; the index
// names those of their sessions that hold an edit there (few do), and
// their active paths alone are walked. A session whose edits cannot be
// read (stale, or an edit without a replacement) marks none of its hits.
// Errors: the index's.
func (a *Archive) markEdits(ctx context.Context, hits []Hit) error {
	bySID := map[int64][]int{} // session row -> indexes into hits
	var sids []int64
	for i := range hits {
		h := &hits[i]
		if h.Type == "session" || !h.active {
			continue
		}
		if _, ok := agent.Of(Dialect(h.dialect)).(agent.Editor); !ok {
			continue
		}
		if _, seen := bySID[h.sid]; !seen {
			sids = append(sids, h.sid)
		}
		bySID[h.sid] = append(bySID[h.sid], i)
	}
	if len(sids) == 0 {
		return nil
	}
	edited, err := a.db().EditedSessions(ctx, sids)
	if err != nil {
		return err
	}
	for _, sid := range sids {
		if !edited[sid] {
			continue
		}
		first := &hits[bySID[sid][0]]
		p, err := a.Path(ctx, QualifiedName(first.source, first.Path), "")
		if err != nil {
			continue
		}
		m, err := a.ContextEdits(ctx, p)
		if err != nil {
			continue
		}
		for _, i := range bySID[sid] {
			hits[i].Edited = m[hits[i].EntryID]
		}
	}
	return nil
}
