package archive

import "slices"

const (
	noParent      = -1 // parentId null: a root
	missingParent = -2 // parentId names no entry: drawn as a root
)

// forest is a session's entries as parent links between entry indices:
// each entry hangs under the first entry (in file order) with its parent
// id, so an entry has one parent at most even when ids repeat; children
// are in file order (SPEC §4). Cycles of parent links stay in it. It is
// what grove tree draws and what grove branches counts leaves over.
type forest struct {
	first   map[string]int32 // id -> first entry with it
	firstOf []int32          // entry -> first entry with its id
	dup     []bool           // entry's id is used by another entry too
	dups    bool             // some id is used twice

	parent []int32 // parent entry, noParent or missingParent
	nkids  []int32 // children (the first entry of an id has them all); BuildTree drops the edge that closes a cycle
	start  []int32 // kids[start[i]:start[i]+nkids[i]] are i's children
	kids   []int32
	named  []bool // some entry names i as parent (SPEC §1's "not a leaf")
}

// newForest links entries (file order). Time and memory are O(len(entries)).
func newForest(entries []Entry) *forest {
	n := len(entries)
	f := &forest{first: make(map[string]int32, n), firstOf: make([]int32, n), dup: make([]bool, n)}
	for i := range entries {
		id := entries[i].EntryID
		if j, seen := f.first[id]; seen {
			f.firstOf[i] = j
			f.dup[i], f.dup[j], f.dups = true, true, true
			continue
		}
		f.first[id] = int32(i)
		f.firstOf[i] = int32(i)
	}
	f.parent = make([]int32, n)
	f.nkids = make([]int32, n)
	for i := range entries {
		f.parent[i] = noParent
		if p := entries[i].ParentID; p != nil {
			f.parent[i] = missingParent
			if i > 0 && entries[i-1].EntryID == *p { // most often: no map lookup
				f.parent[i] = f.firstOf[i-1]
				f.nkids[f.firstOf[i-1]]++
			} else if j, ok := f.first[*p]; ok {
				f.parent[i] = j
				f.nkids[j]++
			}
		}
	}
	f.start = make([]int32, n+1)
	for i := 0; i < n; i++ {
		f.start[i+1] = f.start[i] + f.nkids[i]
	}
	f.kids = make([]int32, f.start[n])
	fill := slices.Clone(f.start[:n])
	for i := range entries {
		if p := f.parent[i]; p >= 0 {
			f.kids[fill[p]] = int32(i)
			fill[p]++
		}
	}
	f.named = make([]bool, n)
	for i := range entries {
		f.named[i] = f.nkids[i] > 0
	}
	return f
}

// children are the entries hanging under entry i, in file order.
func (f *forest) children(i int32) []int32 { return f.kids[f.start[i] : f.start[i]+f.nkids[i]] }

// isLeaf reports whether no entry names x's id as parent (SPEC §1; with
// repeated ids, judged by id).
func (f *forest) isLeaf(x int32) bool { return !f.named[f.firstOf[x]] }

// upward calls visit for every entry, children before their parent
// (Kahn's order from the leaves up), then cycle once for each cycle of
// parent links with its entries: what that order never reaches lies on a
// cycle (one parent each, so its chain of parents comes back to it), and
// by then visit has seen everything hanging off it outside the cycle.
func (f *forest) upward(visit func(i int32), cycle func(members []int32)) {
	n := len(f.parent)
	pending := slices.Clone(f.nkids) // children not yet visited
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
		visit(i)
		if p := f.parent[i]; p >= 0 {
			if pending[p]--; pending[p] == 0 {
				ready = append(ready, p)
			}
		}
	}
	var members []int32
	for i := range n {
		if done[i] {
			continue
		}
		members = members[:0]
		for j := int32(i); !done[j]; j = f.parent[j] {
			done[j] = true
			members = append(members, j)
		}
		cycle(members)
	}
}

// belowCounts gives, for every entry, the number of leaves at or below it
// in one pass (upward); with count, only the leaves it reports true for.
// Every entry of a cycle reaches the whole cycle and all that hangs off
// it, so each gets the sum over the cycle.
func (f *forest) belowCounts(count func(i int32) bool) []int {
	counts := make([]int, len(f.parent))
	f.upward(func(i int32) {
		if f.isLeaf(i) && (count == nil || count(i)) {
			counts[i]++
		}
		if p := f.parent[i]; p >= 0 {
			counts[p] += counts[i]
		}
	}, func(members []int32) {
		total := 0
		for _, j := range members {
			total += counts[j]
		}
		for _, j := range members {
			counts[j] = total
		}
	})
	return counts
}

// firstUserBelow is the first entry with role user met going down from
// entry i (itself included), following the first child at each step, at
// most steps entries; i itself when there is none that close.
func (f *forest) firstUserBelow(entries []Entry, i int32, steps int) int32 {
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

// latestLeaves gives, for every entry, the leaf at or below it on the
// latest line (the greatest entry index), in one pass (upward); -1 where
// there is none (a cycle with nothing hanging off it). Every entry of a
// cycle gets the latest over the whole cycle.
func (f *forest) latestLeaves() []int32 {
	latest := make([]int32, len(f.parent))
	for i := range latest {
		latest[i] = -1
	}
	f.upward(func(i int32) {
		if f.isLeaf(i) {
			latest[i] = max(latest[i], i)
		}
		if p := f.parent[i]; p >= 0 {
			latest[p] = max(latest[p], latest[i])
		}
	}, func(members []int32) {
		best := int32(-1)
		for _, j := range members {
			best = max(best, latest[j])
		}
		for _, j := range members {
			latest[j] = best
		}
	})
	return latest
}
