package archive

import "context"

// PathBranch is a branch point on a path (SPEC §1) with all its children:
// where grove serve's transcript offers the sibling branches (SPEC §9).
type PathBranch struct {
	At       int         // index into Path.Entries of the branch point
	Children []PathChild // in file order (SPEC §4)
}

// PathChild is one child of a branch point on a path.
type PathChild struct {
	ID     string
	OnPath bool // the child the path goes on through
	// Leaf is the leaf of the child's branch on the latest line (the
	// branch's newest leaf), "" when none (a cycle of parent links).
	Leaf   string
	Leaves int // leaves in the child's branch (1 for a child that is a leaf)
	// Preview is one line of the first user message in the branch (its
	// first child at each step, up to 64 entries down), else of the child,
	// as Branch.ChildPreviews; "" when the file cannot be read back, and
	// for a child more than PreviewSiblings away from the path's.
	Preview string
}

// PreviewSiblings bounds the previews PathBranches reads at one branch
// point: those of the PreviewSiblings children on each side of the one the
// path takes (of the first ones, for the children of the last entry). A
// branch point of 20,000 retries then costs 50 line reads, not 20,000.
const PreviewSiblings = 25

// PathBranches lists the branch points on p (Path's answer) in path
// order, each with its children, the newest leaf and the leaf count of
// each child's branch, and previews of the children off the path (the one
// on it has none: the path shows it); and next, the children of p's last
// entry when it is no leaf (a path asked for to an entry inside the
// tree), with previews. It costs one read of the session's entry rows and
// one pass over them, and reads a line per child previewed. Errors: the
// index's.
func (a *Archive) PathBranches(ctx context.Context, p *Path) (branches []PathBranch, next []PathChild, err error) {
	if p.Session.row == nil || len(p.Entries) == 0 {
		return nil, nil, nil
	}
	l, err := a.load(ctx, p.Session.row, true)
	if err != nil {
		return nil, nil, err
	}
	entries := l.entries
	f := newForest(entries)
	var out []PathBranch
	var counts []int
	var latest []int32
	file := l.open()
	if file != nil {
		defer file.Close()
	}
	children := func(kids []int32, on int) []PathChild {
		if counts == nil {
			counts, latest = f.belowCounts(), f.latestLeaves()
		}
		out := make([]PathChild, len(kids))
		here := 0 // the child on the path, for which previews are read near it
		for k, c := range kids {
			if int(c) == on {
				here = k
			}
		}
		for k, c := range kids {
			pc := PathChild{ID: entries[c].EntryID, OnPath: int(c) == on, Leaves: counts[c]}
			if lf := latest[c]; lf >= 0 {
				pc.Leaf = entries[lf].EntryID
			}
			if !pc.OnPath && file != nil && k >= here-PreviewSiblings && k <= here+PreviewSiblings {
				pc.Preview = l.preview(file, entries[f.firstUserBelow(entries, c, branchPreviewSteps)])
			}
			out[k] = pc
		}
		return out
	}
	for i := range p.Entries {
		at := p.Entries[i].Seq
		if at < 0 || at >= len(entries) {
			continue
		}
		kids := f.children(f.firstOf[at])
		if i == len(p.Entries)-1 {
			if len(kids) > 0 {
				next = children(kids, -1)
			}
			break
		}
		if len(kids) >= 2 {
			out = append(out, PathBranch{At: i, Children: children(kids, p.Entries[i+1].Seq)})
		}
	}
	return out, next, nil
}
