package archive

import "context"

// PathBranchPoint is a branch point on a path (SPEC §1) with all its
// branches: where grove serve's transcript offers the sibling branches
// (SPEC §9).
type PathBranchPoint struct {
	At       int      // index into Path.Entries of the branch point
	Branches []Branch // in file order (SPEC §4); one is OnPath
}

// PreviewSiblings bounds the previews PathBranchPoints reads at one branch
// point: those of the PreviewSiblings children on each side of the one the
// path takes (of the first ones, for the children of the last entry). A
// branch point of 20,000 retries then costs 50 line reads, not 20,000.
const PreviewSiblings = 25

// PathBranchPoints lists the branch points on p (Path's answer) in path
// order, each with its branches: the newest leaf and the leaf count of
// each, and previews of those off the path (the one on it has none: the
// path shows it); and next, the branches below p's last entry when it is
// no leaf (a path asked for to an entry inside the tree), with previews.
// It costs one read of the session's entry rows and one pass over them,
// and reads a line per branch previewed. Errors: the index's.
func (a *Archive) PathBranchPoints(ctx context.Context, p *Path) (points []PathBranchPoint, next []Branch, err error) {
	if p.Session.row == nil || len(p.Entries) == 0 {
		return nil, nil, nil
	}
	l, err := a.load(ctx, p.Session.row, true)
	if err != nil {
		return nil, nil, err
	}
	entries := l.entries
	f := newForest(entries)
	var out []PathBranchPoint
	var counts []int
	var latest []int32
	file := l.open()
	if file != nil {
		defer file.Close()
	}
	branches := func(kids []int32, on int) []Branch {
		if counts == nil {
			counts, latest = f.belowCounts(nil), f.latestLeaves()
		}
		out := make([]Branch, len(kids))
		here := 0 // the child on the path, for which previews are read near it
		for k, c := range kids {
			if int(c) == on {
				here = k
			}
		}
		for k, c := range kids {
			pc := Branch{ID: entries[c].EntryID, OnPath: int(c) == on, Leaves: counts[c]}
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
				next = branches(kids, -1)
			}
			break
		}
		if len(kids) >= 2 {
			out = append(out, PathBranchPoint{At: i, Branches: branches(kids, p.Entries[i+1].Seq)})
		}
	}
	return out, next, nil
}
