package archive_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// naiveChildren is what PathBranchPoints says of the children of entry id,
// worked out the slow way: each child's branch walked in full.
func naiveChildren(edges []genEdge, id string, on string) []archive.Branch {
	kids := map[string][]int{}
	for i, e := range edges {
		if e.parent != nil {
			kids[*e.parent] = append(kids[*e.parent], i)
		}
	}
	var out []archive.Branch
	for _, c := range kids[id] {
		pc := archive.Branch{ID: edges[c].id, OnPath: edges[c].id == on}
		latest := -1
		stack := []int{c}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(kids[edges[x].id]) == 0 {
				pc.Leaves++
				latest = max(latest, x)
			}
			stack = append(stack, kids[edges[x].id]...)
		}
		if latest >= 0 {
			pc.Leaf = edges[latest].id
		}
		out = append(out, pc)
	}
	return out
}

// For random trees (unique ids, several roots, many branches), PathBranchPoints
// names, for the path to every entry, each branch point on it with all its
// children in file order, the one the path takes, the leaf count and the
// newest leaf of each child's branch, and the children of the last entry
// when it is no leaf: as walking each branch in full says.
func TestPathBranchPoints_EqualsWalk(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	file := filepath.Join(dir, "s.jsonl")
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(rt, "n")
		var edges []genEdge
		for i := 0; i < n; i++ {
			var parent *string
			if i > 0 && rapid.IntRange(0, 6).Draw(rt, "root") > 0 {
				p := edges[rapid.IntRange(max(0, i-4), i-1).Draw(rt, "parent")].id
				parent = &p
			}
			edges = append(edges, genEdge{id: fmt.Sprintf("e%d", i), parent: parent})
		}
		if err := os.WriteFile(file, plainFile(edges), 0o644); err != nil {
			rt.Fatal(err)
		}
		if _, _, _, err := a.IndexFile(ctx, file, true); err != nil {
			rt.Fatal(err)
		}
		for _, to := range edges {
			p, err := a.Path(ctx, file, to.id)
			if err != nil {
				rt.Fatal(err)
			}
			branches, next, err := a.PathBranchPoints(ctx, p)
			if err != nil {
				rt.Fatal(err)
			}
			var want []archive.PathBranchPoint
			for i := 0; i+1 < len(p.Entries); i++ {
				kids := naiveChildren(edges, p.Entries[i].EntryID, p.Entries[i+1].EntryID)
				if len(kids) >= 2 {
					want = append(want, archive.PathBranchPoint{At: i, Branches: kids})
				}
			}
			wantNext := naiveChildren(edges, to.id, "")
			if got, w := fmt.Sprint(noPreviews(branches)), fmt.Sprint(want); got != w {
				rt.Fatalf("PathBranchPoints(path to %s) = %s, want %s", to.id, got, w)
			}
			var gotNext []archive.Branch
			for _, c := range next {
				c.Preview = ""
				gotNext = append(gotNext, c)
			}
			if got, w := fmt.Sprint(gotNext), fmt.Sprint(wantNext); got != w {
				rt.Fatalf("PathBranchPoints(path to %s) next = %s, want %s", to.id, got, w)
			}
		}
	})
}

// noPreviews drops the previews, which the walk does not make.
func noPreviews(bs []archive.PathBranchPoint) []archive.PathBranchPoint {
	for i := range bs {
		for k := range bs[i].Branches {
			bs[i].Branches[k].Preview = ""
		}
	}
	return bs
}

// The previews of the children off the path are their branch's first user
// message; the child the path takes has none.
func TestPathBranchPoints_Previews(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	file := testutil.MustCopy(t, filepath.Join("..", "testdata", "pi", "v3-tree.jsonl"), dir, "v3.jsonl")
	if _, _, _, err := a.IndexFile(ctx, file, true); err != nil {
		t.Fatal(err)
	}
	p, err := a.Path(ctx, file, "1b3f5d9a")
	if err != nil {
		t.Fatal(err)
	}
	bs, _, err := a.PathBranchPoints(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 {
		t.Fatalf("PathBranchPoints = %d branch points, want 2 (6a1f9e07, be15d3f0)", len(bs))
	}
	last := bs[1]
	if p.Entries[last.At].EntryID != "be15d3f0" || len(last.Branches) != 2 {
		t.Fatalf("second branch point = %s with %d branches, want be15d3f0 with 2", p.Entries[last.At].EntryID, len(last.Branches))
	}
	on, off := last.Branches[0], last.Branches[1]
	if !on.OnPath || on.Preview != "" || off.OnPath || off.Preview != "Instead of refresh tokens, add a logout endpoint." || off.Leaf != "35c7e0da" {
		t.Fatalf("branches = %+v, want 07f9a6c5 on the path without preview, 7d0e2c86 off it with its user message and leaf 35c7e0da", last.Branches)
	}
}
