package archive

import "slices"

// TreeOptions shape the tree BuildTree draws (the flags of `grove tree`).
type TreeOptions struct {
	// Full keeps every entry: no linear run is folded. With Depth 0, every
	// entry of the session is then a node exactly once.
	Full bool
	// Depth is how many levels of branching to show: a linear chain is one
	// level, and the children of a branch point are one level deeper than
	// it. Below a branch point at level Depth, everything is summarized by
	// one NodeCut. 0 means no limit.
	Depth int
	// NoPreviews leaves every Preview empty in Archive.Tree: the caller
	// reads those of the rows it draws with ReadPreviewsOf.
	NoPreviews bool
	// All keeps every entry; without it the tree leaves out what lies on
	// or below a child of another kind than branch (SPEC §4.2), so that
	// its leaves and branch points are the real ones.
	All bool
}

// TreePreviewWidth is the length, in runes, of the previews Archive.Tree
// reads: enough for a 120-column line; a caller clips further to fit.
const TreePreviewWidth = 120

// NodeKind tells what a TreeNode stands for.
type NodeKind uint8

const (
	// NodeEntry is one entry of the session.
	NodeEntry NodeKind = iota
	// NodeFold stands for Folded entries of a linear run, between its
	// parent node and its one child node.
	NodeFold
	// NodeCut stands for everything below a branch point that Depth cut:
	// Folded entries with Leaves leaves in Branches branches. It has no
	// children.
	NodeCut
)

// TreeNode is one node of a Tree: an entry, a folded run or a cut subtree.
// Children are linked: FirstChild, then each child's NextSibling, -1
// ending the list; children of an entry are in file order (SPEC §4).
type TreeNode struct {
	Kind  NodeKind
	Entry int // NodeEntry: index into Tree.Entries; -1 otherwise

	Label   string // the entry's pi label; "" when none (a cleared label is none)
	Active  bool   // the session's active leaf (the last entry in file order, SPEC §1)
	Leaf    bool   // no entry names its id as parent (SPEC §1)
	Preview string // one line read back from the file (ReadPreviews); "" before that

	// Damage (never dropped, drawn where it is): Missing marks an entry
	// whose parent id names no entry, drawn as a root of its own; Cycle an
	// entry whose parent links never reach a root, drawn as the root of its
	// cycle (its parent, Entry.ParentID, is then below it); Duplicate an
	// entry whose id another entry has too.
	Missing, Cycle, Duplicate bool

	Folded   int // NodeFold: entries folded; NodeCut: entries below the branch point
	Leaves   int // NodeCut: leaves below the branch point
	Branches int // NodeCut: children of the branch point

	FirstChild, NextSibling int // node indices; -1 when none
}

// Duplicate is an id that two or more entries of a session have, with the
// physical line numbers of those entries in file order. Children naming
// the id hang under the first of them.
type Duplicate struct {
	ID    string
	Lines []int
}

// Tree is the drawable tree of one session (`grove tree`, SPEC §1, §8):
// nodes in the order a depth-first walk meets them, roots in file order.
type Tree struct {
	Session *Session // the session drawn; nil from BuildTree, set by Archive.Tree
	Entries []Entry  // the session's entries as given, file order
	Nodes   []TreeNode
	// Roots are the nodes of the entries whose parentId is null or names no
	// entry (Missing), in file order.
	Roots []int
	// Cycles are the nodes of entries no root reaches: for each cycle of
	// parent links, its entry first in file order, drawn as a root with
	// Cycle set; whatever hangs off the cycle is below it.
	Cycles     []int
	Duplicates []Duplicate // ids used more than once, by first line

	Shown  int // entries drawn as NodeEntry nodes
	Folded int // entries inside NodeFold nodes
	Cut    int // entries below NodeCut nodes; Shown+Folded+Cut = len(Entries)
}

// Children returns the node indices of n's children, in order.
func (t *Tree) Children(n int) []int {
	var out []int
	for c := t.Nodes[n].FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
		out = append(out, c)
	}
	return out
}

// BuildTree builds the tree of a session from its entries in file order
// (index.DB.EntriesOf), its labels by target id (index.DB.Labels) and the
// id of its active leaf. It is pure and uses no recursion: explicit stacks
// throughout, so a 100,000-entry linear chain is fine. Time and memory are
// O(len(entries)).
//
// Damaged input is drawn, never dropped: with duplicate ids, children and
// labels attach to the first entry with the id and every entry is drawn
// once (the active leaf is the last entry with activeLeaf's id); an entry
// whose parent is missing is a root of its own; entries in or below a
// cycle of parent links are in Cycles.
//
// Folding (unless opt.Full): a linear run is a chain of entries with
// exactly one child each. Always shown are roots, branch points, the
// children of branch points (the first entry of each branch), leaves,
// labelled entries, the active leaf, damaged entries, user messages (the
// prompts that give a long session its outline) and compactions. Between
// two such entries of a run, the last two entries before the next one are
// shown too and the rest are folded into one NodeFold, but only when that
// hides at least two entries.
func BuildTree(entries []Entry, labels map[string]string, activeLeaf string, opt TreeOptions) *Tree {
	t := &Tree{Entries: entries}
	b := &treeBuilder{forest: newForest(entries), t: t, opt: opt, labels: labels, active: -1}
	if b.dups {
		at := map[int32]int{} // first entry of a duplicated id -> index in t.Duplicates
		for i := range entries {
			if !b.dup[i] {
				continue
			}
			k, ok := at[b.firstOf[i]]
			if !ok {
				k = len(t.Duplicates)
				at[b.firstOf[i]] = k
				t.Duplicates = append(t.Duplicates, Duplicate{ID: entries[i].EntryID})
			}
			t.Duplicates[k].Lines = append(t.Duplicates[k].Lines, entries[i].Line)
		}
	}
	for i := len(entries) - 1; i >= 0 && activeLeaf != ""; i-- {
		if entries[i].EntryID == activeLeaf {
			b.active = int32(i)
			break
		}
	}
	b.reach()
	if opt.Depth > 0 {
		b.subtreeSizes()
	}
	for _, r := range b.roots {
		t.Roots = append(t.Roots, b.shape(r))
	}
	for _, r := range b.cycles {
		t.Cycles = append(t.Cycles, b.shape(r))
	}
	return t
}

// treeBuilder holds BuildTree's working arrays, indexed by entry.
type treeBuilder struct {
	*forest
	t      *Tree
	opt    TreeOptions
	labels map[string]string
	active int32

	reached   []bool
	cycleRoot []bool
	roots     []int32 // roots and missing-parent entries, file order
	cycles    []int32 // cycle roots, file order
	order     []int32 // every entry, each after its parent in the walk
	tparent   []int32 // parent in the walk; -1 for roots and cycle roots
	sub, lv   []int32 // entries and leaves in each subtree (Depth only)

	run     []int32 // BuildTree's scratch: the run being shaped
	lastKid []int   // node -> its last child so far
}

// reach finds the roots, then the cycles: an entry no root reaches has a
// parent no root reaches, so walking up from it ends in a cycle; the
// cycle's entry first in file order becomes a root, and the edge into it
// is dropped, which leaves a tree.
func (b *treeBuilder) reach() {
	n := len(b.parent)
	b.reached = make([]bool, n)
	b.cycleRoot = make([]bool, n)
	b.tparent = make([]int32, n)
	b.order = make([]int32, 0, n)
	for i := range b.parent {
		if b.parent[i] < 0 {
			b.roots = append(b.roots, int32(i))
			b.mark(int32(i))
		}
	}
	var stamp []int32
	for i := range b.parent {
		if b.reached[i] {
			continue
		}
		if stamp == nil {
			stamp = make([]int32, n)
		}
		j := int32(i)
		for stamp[j] != int32(i)+1 {
			stamp[j] = int32(i) + 1
			j = b.parent[j]
		}
		m := j
		for k := b.parent[j]; k != j; k = b.parent[k] {
			m = min(m, k)
		}
		// Drop the edge that closes the cycle: m leaves its parent's children.
		p := b.parent[m]
		ks := b.kids[b.start[p] : b.start[p]+b.nkids[p]]
		k := slices.Index(ks, m)
		copy(ks[k:], ks[k+1:])
		b.nkids[p]--
		b.cycleRoot[m] = true
		b.cycles = append(b.cycles, m)
		b.mark(m)
	}
}

// mark walks the tree below r, recording the walk order and parents.
func (b *treeBuilder) mark(r int32) {
	b.reached[r] = true
	b.tparent[r] = -1
	stack := []int32{r}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		b.order = append(b.order, x)
		for _, c := range b.kids[b.start[x] : b.start[x]+b.nkids[x]] {
			if !b.reached[c] {
				b.reached[c] = true
				b.tparent[c] = x
				stack = append(stack, c)
			}
		}
	}
}

// subtreeSizes counts the entries and leaves of every subtree, children
// before parents (the walk order backwards).
func (b *treeBuilder) subtreeSizes() {
	n := len(b.parent)
	b.sub = make([]int32, n)
	b.lv = make([]int32, n)
	for k := len(b.order) - 1; k >= 0; k-- {
		x := b.order[k]
		b.sub[x]++
		if b.isLeaf(x) {
			b.lv[x]++
		}
		if p := b.tparent[x]; p >= 0 {
			b.sub[p] += b.sub[x]
			b.lv[p] += b.lv[x]
		}
	}
}

// keep reports whether entry x, at position pos of its run, is always shown.
func (b *treeBuilder) keep(x int32, pos int) bool {
	if b.opt.Full || pos == 0 || b.nkids[x] != 1 || x == b.active {
		return true
	}
	e := &b.t.Entries[x]
	if b.parent[x] < 0 || b.cycleRoot[x] || b.dup[x] || e.Type == "compaction" {
		return true
	}
	if e.Role != nil && *e.Role == "user" {
		return true
	}
	return b.labelOf(x) != ""
}

func (b *treeBuilder) labelOf(x int32) string {
	if len(b.labels) == 0 || b.firstOf[x] != x {
		return ""
	}
	return b.labels[b.t.Entries[x].EntryID]
}

// chainStart is a run waiting to be shaped: its first entry, the node it
// hangs under (-1 for a root) and its level of branching.
type chainStart struct {
	entry, level int32
	under        int
}

// shape turns the tree below root r into nodes, run by run, and returns
// the root's node.
func (b *treeBuilder) shape(r int32) int {
	top := -1
	todo := []chainStart{{entry: r, level: 1, under: -1}}
	for len(todo) > 0 {
		cs := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		b.run = b.run[:0]
		for x := cs.entry; ; x = b.kids[b.start[x]] {
			b.run = append(b.run, x)
			if b.nkids[x] != 1 {
				break
			}
		}
		prev := cs.under
		add := func(node int) {
			if prev < 0 {
				top = node
			} else {
				b.link(prev, node)
			}
			prev = node
		}
		gap := 0 // run[gap:pos] are not shown yet
		for pos, x := range b.run {
			if !b.keep(x, pos) {
				continue
			}
			if k := pos - gap; k-2 >= 2 {
				add(b.fold(k - 2))
				gap = pos - 2
			}
			for _, y := range b.run[gap:pos] {
				add(b.entryNode(y))
			}
			add(b.entryNode(x))
			gap = pos + 1
		}
		end := b.run[len(b.run)-1]
		if b.nkids[end] < 2 {
			continue
		}
		if b.opt.Depth > 0 && int(cs.level) >= b.opt.Depth {
			cut := b.newNode(TreeNode{Kind: NodeCut, Entry: -1, Folded: int(b.sub[end]) - 1,
				Leaves: int(b.lv[end]), Branches: int(b.nkids[end])})
			b.t.Cut += int(b.sub[end]) - 1
			b.link(prev, cut)
			continue
		}
		ks := b.kids[b.start[end] : b.start[end]+b.nkids[end]]
		for i := len(ks) - 1; i >= 0; i-- {
			todo = append(todo, chainStart{entry: ks[i], level: cs.level + 1, under: prev})
		}
	}
	return top
}

func (b *treeBuilder) newNode(n TreeNode) int {
	n.FirstChild, n.NextSibling = -1, -1
	b.t.Nodes = append(b.t.Nodes, n)
	b.lastKid = append(b.lastKid, -1)
	return len(b.t.Nodes) - 1
}

// link appends child to parent's children.
func (b *treeBuilder) link(parent, child int) {
	if last := b.lastKid[parent]; last < 0 {
		b.t.Nodes[parent].FirstChild = child
	} else {
		b.t.Nodes[last].NextSibling = child
	}
	b.lastKid[parent] = child
}

func (b *treeBuilder) fold(k int) int {
	b.t.Folded += k
	return b.newNode(TreeNode{Kind: NodeFold, Entry: -1, Folded: k})
}

func (b *treeBuilder) entryNode(x int32) int {
	b.t.Shown++
	return b.newNode(TreeNode{
		Kind:      NodeEntry,
		Entry:     int(x),
		Label:     b.labelOf(x),
		Active:    x == b.active,
		Leaf:      b.isLeaf(x),
		Missing:   b.parent[x] == missingParent,
		Cycle:     b.cycleRoot[x],
		Duplicate: b.dup[x],
	})
}
