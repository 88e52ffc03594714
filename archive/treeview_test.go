package archive_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// treeInput reads a fixture into what BuildTree takes from the index:
// entry rows in file order, labels by target, the active leaf.
func treeInput(t *testing.T, rel string) ([]archive.Entry, map[string]string, string) {
	t.Helper()
	s := mustLoad(t, rel)
	rows := make([]archive.Entry, len(s.Entries))
	for i, e := range s.Entries {
		rows[i] = archive.Entry{Seq: i, EntryID: e.ID, Type: e.Type, Line: e.Line, Offset: e.Offset, Length: e.Length}
		if !e.Root {
			p := e.ParentID
			rows[i].ParentID = &p
		}
		if e.Role != "" {
			r := e.Role
			rows[i].Role = &r
		}
	}
	return rows, s.Labels, archive.ActiveLeaf(s.Dialect, s.Entries)
}

// rows builds entry rows from "id<parent" pairs ("id<" is a root), one
// per line number from 2.
func rows(spec string) []archive.Entry {
	var out []archive.Entry
	for i, f := range strings.Fields(spec) {
		id, parent, _ := strings.Cut(f, "<")
		e := archive.Entry{Seq: i, EntryID: id, Type: "message", Line: i + 2}
		if parent != "" {
			e.ParentID = &parent
		}
		out = append(out, e)
	}
	return out
}

// outline writes a tree compactly, without recursion: a chain's nodes
// separated by spaces, a branch point's children in [ | ], a fold as …N,
// a cut as ✂N/L (entries/leaves); cycles after " ↺ ". Marks: * active,
// ! missing parent, ~ cycle root, = duplicate id, (label).
func outline(t *archive.Tree) string {
	var b strings.Builder
	type frame struct {
		node int
		sep  string // written before the node
	}
	draw := func(roots []int) {
		for i, r := range roots {
			if i > 0 {
				b.WriteString(" / ")
			}
			stack := []frame{{node: r}}
			for len(stack) > 0 {
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				b.WriteString(f.sep)
				if f.node < 0 {
					continue
				}
				n := &t.Nodes[f.node]
				switch n.Kind {
				case archive.NodeFold:
					fmt.Fprintf(&b, "…%d", n.Folded)
				case archive.NodeCut:
					fmt.Fprintf(&b, "✂%d/%d", n.Folded, n.Leaves)
				default:
					b.WriteString(t.Entries[n.Entry].EntryID)
					for _, m := range []struct {
						on   bool
						mark string
					}{{n.Active, "*"}, {n.Missing, "!"}, {n.Cycle, "~"}, {n.Duplicate, "="}} {
						if m.on {
							b.WriteString(m.mark)
						}
					}
					if n.Label != "" {
						b.WriteString("(" + n.Label + ")")
					}
				}
				kids := t.Children(f.node)
				if len(kids) == 1 && t.Nodes[kids[0]].Kind != archive.NodeCut {
					stack = append(stack, frame{node: kids[0], sep: " "})
					continue
				}
				if len(kids) == 0 {
					continue
				}
				stack = append(stack, frame{node: -1, sep: "]"})
				for i := len(kids) - 1; i >= 0; i-- {
					sep := " | "
					if i == 0 {
						sep = " ["
					}
					stack = append(stack, frame{node: kids[i], sep: sep})
				}
			}
		}
	}
	draw(t.Roots)
	if len(t.Cycles) > 0 {
		b.WriteString(" ↺ ")
		draw(t.Cycles)
	}
	return b.String()
}

// checkOnce fails unless every entry is drawn exactly once, or folded or
// cut, and the counts add up.
func checkOnce(tb testing.TB, tr *archive.Tree, full bool) {
	tb.Helper()
	seen := make([]int, len(tr.Entries))
	shown, folded, cut := 0, 0, 0
	for _, n := range tr.Nodes {
		switch n.Kind {
		case archive.NodeEntry:
			seen[n.Entry]++
			shown++
		case archive.NodeFold:
			folded += n.Folded
		case archive.NodeCut:
			cut += n.Folded
		}
	}
	for i, k := range seen {
		if k > 1 || (full && k != 1) {
			tb.Fatalf("entry %d (%s, line %d) drawn %d times, want 1", i, tr.Entries[i].EntryID, tr.Entries[i].Line, k)
		}
	}
	if shown != tr.Shown || folded != tr.Folded || cut != tr.Cut || shown+folded+cut != len(tr.Entries) {
		tb.Fatalf("shown %d (Shown %d) + folded %d (Folded %d) + cut %d (Cut %d) != %d entries",
			shown, tr.Shown, folded, tr.Folded, cut, tr.Cut, len(tr.Entries))
	}
	// Every node is reachable from a root exactly once.
	reached := make([]int, len(tr.Nodes))
	stack := append(append([]int(nil), tr.Roots...), tr.Cycles...)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		reached[x]++
		stack = append(stack, tr.Children(x)...)
	}
	for i, k := range reached {
		if k != 1 {
			tb.Fatalf("node %d reached %d times from the roots, want 1", i, k)
		}
	}
}

const v3Full = "a3f0c912 5e81b7d4 0d2c6fa8 7c49e1b3 e1a8d05f 94b3c27e 2f6d8a41 b80e5c63 6a1f9e07" +
	" [c7d24b98 13e5f8a2 f4097c3d 8b6e1d50 3d7a2f19 d5c80e6b 61f3a9c4 9e2b4d87(auth-done) 4a8c7e12 be15d3f0" +
	" [07f9a6c5 c2e48b1d 58ad03e9 ee6172b4 1b3f5d9a | 7d0e2c86 a96b48f1 35c7e0da]" +
	" | f20a9b6e 8c51d3a7 49e7f21c 2d94c1f7 d1b6a058 6f2c8e93 0ae4d7b5 b7395fc2*]"

func TestBuildTree_Fixtures(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		opt     archive.TreeOptions
		want    string
		cycles  int
		roots   int
		dupLine string
	}{
		// The cleared "decision-point" label on 6a1f9e07 must not show.
		{name: "v3-tree full", file: "pi/v3-tree.jsonl", opt: archive.TreeOptions{Full: true}, want: v3Full, roots: 1},
		{name: "v3-tree folded", file: "pi/v3-tree.jsonl", roots: 1,
			want: "a3f0c912 5e81b7d4 0d2c6fa8 7c49e1b3 …2 2f6d8a41 b80e5c63 6a1f9e07" +
				" [c7d24b98 13e5f8a2 …3 d5c80e6b 61f3a9c4 9e2b4d87(auth-done) 4a8c7e12 be15d3f0" +
				" [07f9a6c5 c2e48b1d 58ad03e9 ee6172b4 1b3f5d9a | 7d0e2c86 a96b48f1 35c7e0da]" +
				" | f20a9b6e 8c51d3a7 49e7f21c 2d94c1f7 d1b6a058 6f2c8e93 0ae4d7b5 b7395fc2*]"},
		{name: "v3-tree depth 1", file: "pi/v3-tree.jsonl", opt: archive.TreeOptions{Full: true, Depth: 1}, roots: 1,
			want: "a3f0c912 5e81b7d4 0d2c6fa8 7c49e1b3 e1a8d05f 94b3c27e 2f6d8a41 b80e5c63 6a1f9e07 [✂26/3]"},
		{name: "v3-tree depth 2", file: "pi/v3-tree.jsonl", opt: archive.TreeOptions{Full: true, Depth: 2}, roots: 1,
			want: "a3f0c912 5e81b7d4 0d2c6fa8 7c49e1b3 e1a8d05f 94b3c27e 2f6d8a41 b80e5c63 6a1f9e07" +
				" [c7d24b98 13e5f8a2 f4097c3d 8b6e1d50 3d7a2f19 d5c80e6b 61f3a9c4 9e2b4d87(auth-done) 4a8c7e12 be15d3f0 [✂8/2]" +
				" | f20a9b6e 8c51d3a7 49e7f21c 2d94c1f7 d1b6a058 6f2c8e93 0ae4d7b5 b7395fc2*]"},
		{name: "v3-tree depth 3 is all", file: "pi/v3-tree.jsonl", opt: archive.TreeOptions{Full: true, Depth: 3}, want: v3Full, roots: 1},
		// A label entry that is itself a leaf is shown, as a leaf.
		{name: "v2-branches folded", file: "pi/v2-branches.jsonl", roots: 1,
			want: "3f9a1c20 7b2e4d91 c5d8e0f3 1e6f7a82(router-choice)" +
				" [9d0c4b57 e2a4f6c8 4b8d1e39 a0c3e5f7 5f1b7d2e" +
				" | d83e6a04 62c9f0a1 b4e7a3d6 0a5d8c1e 8e2f4a6b f7c1e9d3 3a6e0b8f c19d7f24 [2b8e6d90 e7a05c3b | 94f2b1e6 06c4a8d7*]]"},
		{name: "v1-linear folded", file: "pi/v1-linear.jsonl", roots: 1,
			want: "L2 …2 L5 L6 L7 L8 L9 L10 L11*"},
		{name: "chapter-tree", file: "plain/chapter-tree.jsonl", roots: 1,
			want: "u-1 [a-read r-read a-final meta-cwd* | a-alt]"},
		{name: "missing parent", file: "cases/07-missing-parent.jsonl", roots: 2,
			want: "e01 e02 e03 / e04! e05*"},
		{name: "bad line leaves a missing parent", file: "cases/02-fused-line.jsonl", roots: 2,
			want: "e01 e02 / e05*!"},
		{name: "cycle and self-parent", file: "cases/09-parent-cycle.jsonl", roots: 1, cycles: 2,
			want: "e01 ↺ e02~ e03 e04 e05 / e06*~"},
		{name: "cycle, depth 1", file: "cases/09-parent-cycle.jsonl", opt: archive.TreeOptions{Depth: 1}, roots: 1, cycles: 2,
			want: "e01 ↺ e02~ e03 e04 e05 / e06*~"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			entries, labels, active := treeInput(t, tc.file)
			tr := archive.BuildTree(entries, labels, active, tc.opt)
			if got := outline(tr); got != tc.want {
				t.Errorf("BuildTree(%s, %+v) =\n%s\nwant\n%s", tc.file, tc.opt, got, tc.want)
			}
			if len(tr.Roots) != tc.roots || len(tr.Cycles) != tc.cycles {
				t.Errorf("BuildTree(%s): %d roots, %d cycles; want %d, %d", tc.file, len(tr.Roots), len(tr.Cycles), tc.roots, tc.cycles)
			}
			checkOnce(t, tr, tc.opt.Full && tc.opt.Depth == 0)
		})
	}
}

// Leaves are marked by SPEC §1 (no entry names the id as parent); the
// label of a leaf shows on it.
func TestBuildTree_LeafMarks(t *testing.T) {
	entries, labels, active := treeInput(t, "pi/v2-branches.jsonl")
	tr := archive.BuildTree(entries, labels, active, archive.TreeOptions{Full: true})
	var leaves []string
	for _, n := range tr.Nodes {
		if n.Leaf {
			leaves = append(leaves, tr.Entries[n.Entry].EntryID)
		}
	}
	if got := strings.Join(leaves, " "); got != "5f1b7d2e e7a05c3b 06c4a8d7" {
		t.Errorf("leaves = %s, want 5f1b7d2e e7a05c3b 06c4a8d7", got)
	}
}

func TestBuildTree_Damaged(t *testing.T) {
	tests := []struct {
		name, spec string
		opt        archive.TreeOptions
		want       string
		dups       string
	}{
		{name: "duplicate id: children under the first", spec: "r< a<r a<r b<a c<b",
			opt: archive.TreeOptions{Full: true}, want: "r [a= b c* | a=]", dups: "a:3,4"},
		{name: "duplicate names itself as parent", spec: "a< a<a b<a",
			opt: archive.TreeOptions{Full: true}, want: "a= [a= | b*]", dups: "a:2,3"},
		{name: "duplicate root", spec: "a< b<a a< c<a",
			opt: archive.TreeOptions{Full: true}, want: "a= [b | c*] / a=", dups: "a:2,4"},
		{name: "duplicate is the active leaf", spec: "r< a<r b<a a<b",
			opt: archive.TreeOptions{Full: true}, want: "r a= b a*=", dups: "a:3,5"},
		{name: "two cycles and a tree hanging off one", spec: "r< x<z y<x z<y w<y v<w p<q q<p",
			opt: archive.TreeOptions{Full: true}, want: "r ↺ x~ y [z | w v] / p~ q*"},
		{name: "cycle entered late in file order", spec: "r< c<b b<a a<c",
			opt: archive.TreeOptions{Full: true}, want: "r ↺ c~ a* b"},
		{name: "missing parent below a fold", spec: "r< a<r b<a c<b d<c e<d f<zz g<f",
			want: "r …2 c d e / f! g*"},
		{name: "fold needs two hidden entries", spec: "r< a<r b<a c<b d<c",
			want: "r a b c d*"},
		{name: "empty session", spec: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			es := rows(tc.spec)
			active := ""
			if len(es) > 0 {
				active = es[len(es)-1].EntryID
			}
			tr := archive.BuildTree(es, nil, active, tc.opt)
			if got := outline(tr); got != tc.want {
				t.Errorf("BuildTree(%q) = %s, want %s", tc.spec, got, tc.want)
			}
			var dups []string
			for _, d := range tr.Duplicates {
				dups = append(dups, d.ID+":"+strings.Trim(strings.Join(strings.Fields(fmt.Sprint(d.Lines)), ","), "[]"))
			}
			if got := strings.Join(dups, " "); got != tc.dups {
				t.Errorf("BuildTree(%q).Duplicates = %s, want %s", tc.spec, got, tc.dups)
			}
			checkOnce(t, tr, tc.opt.Full)
		})
	}
}

// Random trees with every kind of damage: each entry is drawn once with
// --full, and counted once whatever the folding and depth.
func TestBuildTree_RandomDamage(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for round := 0; round < 300; round++ {
		n := 1 + r.Intn(60)
		var es []archive.Entry
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("e%d", i)
			if r.Intn(15) == 0 && i > 0 {
				id = fmt.Sprintf("e%d", r.Intn(i)) // duplicate
			}
			e := archive.Entry{Seq: i, EntryID: id, Type: "message", Line: i + 2}
			var p string
			switch k := r.Intn(20); {
			case k == 0 || i == 0:
				es = append(es, e)
				continue
			case k == 1:
				p = "gone" // missing
			case k == 2:
				p = fmt.Sprintf("e%d", r.Intn(n)) // maybe later: cycles
			case k < 8:
				p = fmt.Sprintf("e%d", r.Intn(i))
			default:
				p = fmt.Sprintf("e%d", i-1)
			}
			e.ParentID = &p
			if r.Intn(4) == 0 {
				role := "user"
				e.Role = &role
			}
			es = append(es, e)
		}
		labels := map[string]string{fmt.Sprintf("e%d", r.Intn(n)): "x"}
		for _, opt := range []archive.TreeOptions{{Full: true}, {}, {Depth: 1}, {Depth: 2, Full: true}} {
			tr := archive.BuildTree(es, labels, es[n-1].EntryID, opt)
			checkOnce(t, tr, opt.Full && opt.Depth == 0)
		}
	}
}

// chain is a linear session of n entries: a root and each entry the child
// of the one before.
func chain(n int) []archive.Entry {
	es := make([]archive.Entry, n)
	for i := range es {
		es[i] = archive.Entry{Seq: i, EntryID: fmt.Sprintf("%08x", i), Type: "message", Line: i + 2}
		if i > 0 {
			p := es[i-1].EntryID
			es[i].ParentID = &p
		}
	}
	return es
}

// bushy is a session of n entries where each entry's parent is a random
// earlier one: thousands of branch points, deep and wide.
func bushy(n int, seed int64) []archive.Entry {
	r := rand.New(rand.NewSource(seed))
	es := chain(n)
	for i := 1; i < n; i++ {
		p := es[i-1-r.Intn(min(i, 3))].EntryID
		es[i].ParentID = &p
	}
	return es
}

// A 100,000-entry chain, and a 100,000-entry bushy tree, build with a
// 1 MiB stack, which even the smallest recursive walk (16 bytes a frame)
// overflows at this depth: BuildTree does not recurse.
func TestBuildTree_Large(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
	tests := []struct {
		name    string
		entries []archive.Entry
		opt     archive.TreeOptions
		shown   int
	}{
		{name: "chain folded", entries: chain(100_000), shown: 4},
		{name: "chain full", entries: chain(100_000), opt: archive.TreeOptions{Full: true}, shown: 100_000},
		{name: "chain depth 1", entries: chain(100_000), opt: archive.TreeOptions{Depth: 1, Full: true}, shown: 100_000},
		{name: "bushy full", entries: bushy(100_000, 1), opt: archive.TreeOptions{Full: true}, shown: 100_000},
		{name: "bushy folded", entries: bushy(100_000, 1), shown: -1},
		{name: "bushy depth 3", entries: bushy(100_000, 1), opt: archive.TreeOptions{Depth: 3}, shown: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := archive.BuildTree(tc.entries, nil, tc.entries[len(tc.entries)-1].EntryID, tc.opt)
			checkOnce(t, tr, tc.opt.Full && tc.opt.Depth == 0)
			if tc.shown >= 0 && tr.Shown != tc.shown {
				t.Errorf("BuildTree: %d entries shown, want %d", tr.Shown, tc.shown)
			}
		})
	}
}

// Archive.Tree reads the shown entries' previews back from the file and
// refuses a file that changed since it was indexed.
func TestArchive_Tree(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "v3-tree.jsonl")
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Files: []string{path}}); err != nil {
		t.Fatal(err)
	}
	r, err := a.Tree(ctx, "5b7e", archive.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Session.Name != "Auth refactor (JWT)" {
		t.Errorf("Tree(5b7e).Session.Name = %q, want Auth refactor (JWT)", r.Session.Name)
	}
	previews := map[string]string{}
	for _, n := range r.Nodes {
		if n.Kind == archive.NodeEntry {
			previews[r.Entries[n.Entry].EntryID] = n.Preview
		}
	}
	for id, want := range map[string]string{
		"7c49e1b3": "帮我给 demo-app 加上 JWT 登录，并写好单元测试。",
		"2f6d8a41": `→ bash {"command":"npm test","timeout":120}`,
		"b7395fc2": "jose is installed; next I'll port login() to new SignJWT({ sub: user }).",
	} {
		if previews[id] != want {
			t.Errorf("Tree(5b7e): preview of %s = %q, want %q", id, previews[id], want)
		}
	}
	if got := outline(r); !strings.Contains(got, "9e2b4d87(auth-done)") || strings.Contains(got, "decision-point") {
		t.Errorf("Tree(5b7e) = %s; want the auth-done label and not the cleared decision-point", got)
	}

	testutil.MustWriteFile(t, dir, "v3-tree.jsonl", []byte("{}\n"))
	if _, err := a.Tree(ctx, "5b7e", archive.TreeOptions{}); !isCode(err, errs.CodeStaleIndex) {
		t.Errorf("Tree on a changed file = %v, want stale_index", err)
	}
	if _, err := a.Tree(ctx, "nope-nope", archive.TreeOptions{}); !isCode(err, errs.CodeUnknownSession) {
		t.Errorf("Tree(nope-nope) = %v, want unknown_session", err)
	}
}

// isCode reports whether err is a *errs.Error with code.
func isCode(err error, code errs.Code) bool { return errs.CodeOf(err) == code }

// BenchmarkBuildTree builds the tree of a 100,000-entry chain and of a
// 100,000-entry bushy session (no previews: see cmd/grove's BenchmarkTree).
func BenchmarkBuildTree(b *testing.B) {
	for _, bc := range []struct {
		name    string
		entries []archive.Entry
		opt     archive.TreeOptions
	}{
		{"chain/folded", chain(100_000), archive.TreeOptions{}},
		{"chain/full", chain(100_000), archive.TreeOptions{Full: true}},
		{"bushy/folded", bushy(100_000, 1), archive.TreeOptions{}},
		{"bushy/full", bushy(100_000, 1), archive.TreeOptions{Full: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				archive.BuildTree(bc.entries, nil, bc.entries[len(bc.entries)-1].EntryID, bc.opt)
			}
		})
	}
}
