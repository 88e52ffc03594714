package archive

import (
	"context"

	"github.com/grove-sessions/grove/index"
)

// Branch is one row of `grove branches` (SPEC §1, §8): a branch point
// (an entry that two or more entries name as parent) and its children.
type Branch struct {
	Session     *Session
	EntryID     string   // the branch point's id
	Children    []string // the ids of its children, in file order
	Leaves      int      // leaves at or below the branch point
	ChildLeaves []int    // ChildLeaves[i]: leaves in the branch of Children[i] (1 for a child that is a leaf)
	Label       string
	// Preview is one line from the branch point entry; ChildPreviews[i] one
	// line from the first user message in the branch of Children[i] (its
	// first child at each step, up to branchPreviewSteps entries down), or
	// from the child itself. "" when the file cannot be read back.
	Preview       string
	ChildPreviews []string
	Stale         bool // the session's file changed since it was indexed (no previews)
}

// branchPreviewSteps bounds the walk down a branch for its first user
// message.
const branchPreviewSteps = 64

// Branches lists the branch points of the sessions f picks (sessions most
// recently modified first, branch points in file order), with their
// children in file order, the number of leaves below each branch point and
// in each child's branch, and previews read back from the files. A session
// with branch points costs one read of its entry rows; the counts take one
// pass over them (see belowCounts), so a comb of 100,000 branch points is
// as cheap as a chain.
func (a *Archive) Branches(ctx context.Context, f Filter) ([]Branch, error) {
	sessions, err := a.pick(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []Branch
	for i := range sessions {
		bs, err := a.branchesOf(ctx, &sessions[i])
		if err != nil {
			return nil, err
		}
		out = append(out, bs...)
	}
	return out, nil
}

// branchesOf is Branches for one session.
func (a *Archive) branchesOf(ctx context.Context, s *index.Session) ([]Branch, error) {
	bs, err := a.db.Branches(ctx, s.SID)
	if err != nil || len(bs) == 0 {
		return nil, err
	}
	l, err := a.load(ctx, s, true)
	if err != nil {
		return nil, err
	}
	entries := l.entries
	f := newForest(entries)
	counts := f.belowCounts()
	file := l.open()
	stale := file == nil
	if file != nil {
		defer file.Close()
	}
	preview := func(i int32) string {
		if i < 0 {
			return ""
		}
		return l.preview(file, entries[i]) // "" when changed under us, as for a stale file
	}
	out := make([]Branch, 0, len(bs))
	for _, b := range bs {
		at := f.first[b.EntryID]
		bi := Branch{Session: l.s, EntryID: b.EntryID, Children: b.Children, Label: l.labels[b.EntryID], Stale: stale, Leaves: counts[at],
			Preview: preview(at), ChildLeaves: make([]int, len(b.Children)), ChildPreviews: make([]string, len(b.Children))}
		for k, c := range f.children(at) {
			if k >= len(b.Children) {
				break
			}
			bi.ChildLeaves[k] = counts[c]
			bi.ChildPreviews[k] = preview(f.firstUserBelow(entries, c, branchPreviewSteps))
		}
		out = append(out, bi)
	}
	return out, nil
}
