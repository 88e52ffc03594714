package archive

import (
	"context"
	"os"
	"slices"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// BranchInfo is one row of `grove branches` (SPEC §8).
type BranchInfo struct {
	Session *index.Session
	index.Branch
	Leaves      int   // leaves at or below the branch point
	ChildLeaves []int // ChildLeaves[i]: leaves in the branch of Children[i] (1 for a child that is a leaf)
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
func (a *Archive) Branches(ctx context.Context, f Filter) ([]BranchInfo, error) {
	sessions, err := a.pick(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []BranchInfo
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
func (a *Archive) branchesOf(ctx context.Context, s *index.Session) ([]BranchInfo, error) {
	bs, err := a.db.Branches(ctx, s.SID)
	if err != nil || len(bs) == 0 {
		return nil, err
	}
	entries, err := a.db.EntriesOf(ctx, s.SID)
	if err != nil {
		return nil, err
	}
	labels, err := a.db.Labels(ctx, s.SID)
	if err != nil {
		return nil, err
	}
	f := newForest(entries)
	counts := f.belowCounts()
	stale := Fresh(s) != nil
	var file *os.File
	if !stale {
		if file, err = os.Open(s.Path); err != nil {
			stale = true
		} else {
			defer file.Close()
		}
	}
	preview := func(i int32) string {
		if stale || i < 0 {
			return ""
		}
		raw, err := ReadLine(file, s.Path, entries[i])
		if err != nil {
			return "" // changed under us: no preview, as for a stale file
		}
		return PreviewIn(jsonl.Dialect(s.Dialect), raw, PreviewWidth)
	}
	out := make([]BranchInfo, 0, len(bs))
	for _, b := range bs {
		at := f.first[b.EntryID]
		bi := BranchInfo{Session: s, Branch: b, Label: labels[b.EntryID], Stale: stale, Leaves: counts[at],
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

// belowCounts gives, for every entry, the number of leaves at or below it
// in one pass: children are counted before their parent (Kahn's order from
// the leaves up). What that order never reaches lies on a cycle of parent
// links; every entry of a cycle reaches the whole cycle and all that hangs
// off it, so each gets the sum over the cycle.
func (f *forest) belowCounts() []int {
	n := len(f.parent)
	counts := make([]int, n)
	pending := slices.Clone(f.nkids) // children not yet counted
	var ready []int32
	for i := range int32(n) {
		if pending[i] == 0 {
			ready = append(ready, i)
		}
	}
	done := make([]bool, n)
	for len(ready) > 0 {
		i := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		done[i] = true
		if f.isLeaf(i) {
			counts[i]++
		}
		if p := f.parent[i]; p >= 0 {
			counts[p] += counts[i]
			if pending[p]--; pending[p] == 0 {
				ready = append(ready, p)
			}
		}
	}
	// Each entry left is on a cycle (one parent each, so its chain of
	// parents comes back to it); counts[i] already holds what hangs off it
	// outside the cycle.
	for i := range n {
		if done[i] {
			continue
		}
		var cycle []int32
		total := 0
		for j := int32(i); !done[j]; j = f.parent[j] {
			done[j] = true
			cycle = append(cycle, j)
			total += counts[j]
		}
		for _, j := range cycle {
			counts[j] = total
		}
	}
	return counts
}

// firstUserBelow is the first entry with role user met going down from
// entry i (itself included), following the first child at each step, at
// most steps entries; i itself when there is none that close.
func (f *forest) firstUserBelow(entries []index.Entry, i int32, steps int) int32 {
	for j, k := i, 0; k < steps; k++ {
		if r := entries[j].Role; r != nil && *r == "user" {
			return j
		}
		kids := f.children(j)
		if len(kids) == 0 {
			break
		}
		j = kids[0]
	}
	return i
}
