package archive

import (
	"context"
	"slices"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// Branch is one child line of descent at a branch point (SPEC §1): a
// child of the branch point and every entry below it.
type Branch struct {
	ID     string // the child's id
	Leaves int    // leaves in the branch (1 for a child that is a leaf)
	// Leaf is the branch's newest leaf (on the latest line), "" when it
	// has none (a cycle of parent links). Set by PathBranchPoints.
	Leaf string
	// OnPath marks the child a path goes on through. Set by
	// PathBranchPoints.
	OnPath bool
	// Kind is the child's kind (SPEC §4.2): branch, parallel, progress,
	// replay or command.
	Kind string
	// Preview is one line of the first user message in the branch (its
	// first child at each step, up to branchPreviewSteps entries down),
	// else of the child. It is "" when the file cannot be read back, and
	// in PathBranchPoints for the child on the path and for a child more
	// than PreviewSiblings away from it.
	Preview string
}

// SessionBranchPoint is one row of `grove branches` (SPEC §1, §8): a
// branch point of an indexed session (an entry that two or more entries
// name as parent) and its branches.
type SessionBranchPoint struct {
	Session *Session
	ID      string // the branch point's id
	Leaves  int    // leaves at or below the branch point
	Label   string
	// Preview is one line from the branch point entry; "" when the file
	// cannot be read back.
	Preview  string
	Branches []Branch // one per child, in file order: ID, Leaves and Preview
	Stale    bool     // the session's file changed since it was indexed (no previews)
}

// branchPreviewSteps bounds the walk down a branch for its first user
// message.
const branchPreviewSteps = 64

// BranchPoints lists the branch points of the sessions f picks (sessions
// most recently modified first, branch points in file order): the real
// ones (two or more children on real branches, SPEC §4.2), or with f.All
// every one; each with all its branches in file order and their kinds,
// the number of leaves below the branch point and in each branch (the
// real ones, or with f.All every one), and previews read back from the
// files. A session with branch points costs one read of its entry rows;
// the counts take one pass over them (see belowCounts), so a comb of
// 100,000 branch points is as cheap as a chain.
func (a *Archive) BranchPoints(ctx context.Context, f Filter) ([]SessionBranchPoint, error) {
	sessions, err := a.pick(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []SessionBranchPoint
	for i := range sessions {
		bs, err := a.branchPointsOf(ctx, &sessions[i], f.All)
		if err != nil {
			return nil, err
		}
		out = append(out, bs...)
	}
	return out, nil
}

// branchPointsOf is BranchPoints for one session.
func (a *Archive) branchPointsOf(ctx context.Context, s *index.Session, all bool) ([]SessionBranchPoint, error) {
	bs, err := a.db().BranchPoints(ctx, s.SID)
	if err != nil {
		return nil, err
	}
	if !all {
		bs = slices.DeleteFunc(bs, func(b index.BranchPoint) bool { return realChildren(b) < 2 })
	}
	if len(bs) == 0 {
		return nil, nil
	}
	l, err := a.load(ctx, s, true)
	if err != nil {
		return nil, err
	}
	entries := l.entries
	f := newForest(entries)
	var real func(i int32) bool // without all, the real leaves are counted (SPEC §4.2)
	if !all {
		real = func(i int32) bool {
			return entries[i].PathKind == "" || entries[i].PathKind == jsonl.KindBranch.String()
		}
	}
	counts := f.belowCounts(real)
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
	out := make([]SessionBranchPoint, 0, len(bs))
	for _, b := range bs {
		at := f.first[b.EntryID]
		bp := SessionBranchPoint{Session: l.s, ID: b.EntryID, Label: l.labels[b.EntryID], Stale: stale, Leaves: counts[at],
			Preview: preview(at), Branches: make([]Branch, len(b.Children))}
		for k, id := range b.Children {
			bp.Branches[k].ID = id
			bp.Branches[k].Kind = jsonl.KindBranch.String()
			if b.Kinds[k] != "" {
				bp.Branches[k].Kind = b.Kinds[k]
			}
		}
		for k, c := range f.children(at) {
			if k >= len(b.Children) {
				break
			}
			bp.Branches[k].Leaves = counts[c]
			bp.Branches[k].Preview = preview(f.firstUserBelow(entries, c, branchPreviewSteps))
		}
		out = append(out, bp)
	}
	return out, nil
}

// realChildren is how many children of b are on real branches (SPEC
// §4.2: their kinds and every kind above them branch).
func realChildren(b index.BranchPoint) int {
	n := 0
	for _, r := range b.Real {
		if r {
			n++
		}
	}
	return n
}
