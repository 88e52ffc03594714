package archive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// genEdge is one generated entry: its id and its parent (nil = root).
type genEdge struct {
	id        string
	parent    *string
	assistant bool // an assistant message instead of a user one
}

// plainFile renders edges as a plain-dialect session file.
func plainFile(edges []genEdge) []byte {
	var b strings.Builder
	for i, e := range edges {
		parent := "null"
		if e.parent != nil {
			p, _ := json.Marshal(*e.parent)
			parent = string(p)
		}
		id, _ := json.Marshal(e.id)
		message := fmt.Sprintf(`{"role":"user","content":"m%d"}`, i)
		if e.assistant {
			message = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"m%d"}]}`, i)
		}
		fmt.Fprintf(&b, `{"id":%s,"parentId":%s,"timestamp":%d,"type":"message","message":%s}`+"\n", id, parent, 1700000000000+i, message)
	}
	return []byte(b.String())
}

// answerOf renders a path answer for comparison: ids root first, or the
// error's code, id, parent, lines, loop and message.
func answerOf(ids []string, err error) string {
	if err != nil {
		e, ok := err.(*errs.Error)
		if !ok {
			return "go error: " + err.Error()
		}
		return fmt.Sprintf("%s id=%q parent=%q lines=%v loop=%v message=%q", e.Code, e.ID, e.Parent, e.Lines, e.Loop, e.Message)
	}
	return strings.Join(ids, ">")
}

func cteAnswer(ctx context.Context, db *index.DB, sid int64, leaf string) string {
	es, err := db.Path(ctx, sid, leaf)
	var got []string
	for _, e := range es {
		got = append(got, e.EntryID)
	}
	return answerOf(got, err)
}

func pathToAnswer(entries []jsonl.Entry, leaf string) string {
	p, err := archive.PathTo(entries, leaf)
	var got []string
	for _, e := range p {
		got = append(got, e.ID)
	}
	return answerOf(got, err)
}

// For random trees, with duplicate ids, missing parents, cycles,
// self-parents, many roots and branches, the recursive CTE over a real
// SQLite index, and over a real PostgreSQL one, gives exactly PathTo's
// answer for every entry id and for an unknown one (SPEC §4, §6, §10).
func TestPathCTE_EqualsPathTo(t *testing.T) { forEachBackend(t, testPathCTEEqualsPathTo) }

func testPathCTEEqualsPathTo(t *testing.T, db string) {
	ctx := context.Background()
	dir := t.TempDir()
	a := mustOpenArchive(t, db)
	file := filepath.Join(dir, "s.jsonl")
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(rt, "n")
		pool := rapid.IntRange(n, n+n/4+1).Draw(rt, "pool") // pool < n+... lets ids repeat
		var edges []genEdge
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("e%d", i)
			if rapid.IntRange(0, 20).Draw(rt, "dupChance") == 0 {
				id = fmt.Sprintf("e%d", rapid.IntRange(0, pool).Draw(rt, "dupOf"))
			}
			var parent *string
			switch k := rapid.IntRange(0, 9).Draw(rt, "parentKind"); {
			case k == 0: // a root
			case k == 1: // any id, earlier or later: cycles and self-parents
				p := fmt.Sprintf("e%d", rapid.IntRange(0, n-1).Draw(rt, "anyParent"))
				parent = &p
			case k == 2: // a parent that is not there
				p := fmt.Sprintf("missing%d", rapid.IntRange(0, 3).Draw(rt, "missing"))
				parent = &p
			default: // an earlier entry: an ordinary tree with branches
				if i > 0 {
					p := edges[rapid.IntRange(0, i-1).Draw(rt, "earlier")].id
					parent = &p
				}
			}
			edges = append(edges, genEdge{id: id, parent: parent, assistant: rapid.IntRange(0, 2).Draw(rt, "assistant") > 0})
		}
		if err := os.WriteFile(file, plainFile(edges), 0o644); err != nil {
			rt.Fatal(err)
		}
		if _, _, _, err := a.IndexFile(ctx, file, true); err != nil {
			rt.Fatal(err)
		}
		s, err := archive.DBOf(a).SessionByPath(ctx, file)
		if err != nil || s == nil {
			rt.Fatalf("session not indexed: %v", err)
		}
		loaded, err := archive.Load(file)
		if err != nil {
			rt.Fatal(err)
		}
		leaves := []string{"no-such-entry"}
		for _, e := range edges {
			leaves = append(leaves, e.id)
		}
		for _, leaf := range leaves {
			want := pathToAnswer(loaded.Entries, leaf)
			got := cteAnswer(ctx, archive.DBOf(a), s.SID, leaf)
			if got != want {
				rt.Fatalf("leaf %q: CTE = %s, PathTo = %s", leaf, got, want)
			}
		}
		// Leaves and branch points agree too.
		idxLeaves, err := archive.DBOf(a).Leaves(ctx, s.SID)
		if err != nil {
			rt.Fatal(err)
		}
		var gotLeaves, wantLeaves []string
		for _, l := range idxLeaves {
			gotLeaves = append(gotLeaves, l.EntryID)
		}
		for _, l := range archive.Leaves(loaded.Entries) {
			wantLeaves = append(wantLeaves, l.ID)
		}
		if !slices.Equal(gotLeaves, wantLeaves) {
			rt.Fatalf("leaves: index %v, Leaves %v", gotLeaves, wantLeaves)
		}
		if s.Leaves != len(wantLeaves) {
			rt.Fatalf("sessions.leaves = %d, want %d", s.Leaves, len(wantLeaves))
		}
		// Exactly the entry on the last line is active (SPEC §1), when it
		// is a leaf: decided by line, so a leaf sharing its id is not.
		rows, err := a.Leaves(ctx, archive.Filter{Session: file})
		if err != nil {
			rt.Fatal(err)
		}
		last := loaded.Entries[len(loaded.Entries)-1]
		named := false
		for _, e := range loaded.Entries {
			named = named || (!e.Root && e.ParentID == last.ID)
		}
		var active []int
		for _, r := range rows {
			if r.Active {
				active = append(active, r.Line)
			}
		}
		if want := []int{last.Line}; named && len(active) != 0 || !named && !slices.Equal(active, want) {
			rt.Fatalf("active leaves on lines %v; the last entry is %q on line %d (a parent: %t)", active, last.ID, last.Line, named)
		}
		bs, err := archive.DBOf(a).BranchPoints(ctx, s.SID)
		if err != nil {
			rt.Fatal(err)
		}
		var gotB, wantB []string
		for _, b := range bs {
			gotB = append(gotB, b.EntryID+":"+strings.Join(b.Children, ","))
		}
		for _, b := range archive.BranchPoints(loaded.Entries) {
			wantB = append(wantB, b.ID+":"+strings.Join(b.Children, ","))
		}
		if !slices.Equal(gotB, wantB) {
			rt.Fatalf("branch points: index %v, BranchPoints %v", gotB, wantB)
		}
		// Each child branch holds the leaves reached from it, as grove
		// branches says. Without repeated ids that is every leaf reached by
		// ids (a cycle reaches itself and what hangs off it); with them,
		// entries hang under the first entry of an id, as grove tree draws
		// them, which no walk by ids gives, so those sessions are left out.
		infos, err := a.BranchPoints(ctx, archive.Filter{Session: file})
		if err != nil {
			rt.Fatal(err)
		}
		children := archive.Children(loaded.Entries)
		isLeaf := map[string]bool{}
		for _, l := range wantLeaves {
			isLeaf[l] = true
		}
		reach := func(from string) int {
			seen, queue, n := map[string]bool{from: true}, []string{from}, 0
			for len(queue) > 0 {
				id := queue[0]
				queue = queue[1:]
				if isLeaf[id] {
					n++
				}
				for _, g := range children[id] {
					if !seen[g] {
						seen[g] = true
						queue = append(queue, g)
					}
				}
			}
			return n
		}
		for _, b := range infos {
			if s.DuplicateID != nil {
				break
			}
			if want := reach(b.ID); b.Leaves != want {
				rt.Fatalf("branch point %s: %d leaves, want %d", b.ID, b.Leaves, want)
			}
			for _, br := range b.Branches {
				if want := reach(br.ID); br.Leaves != want {
					rt.Fatalf("branch point %s, branch %s: %d leaves, want %d", b.ID, br.ID, br.Leaves, want)
				}
			}
		}
		// The last user message on a whole path is the one a leaf's preview
		// shows.
		for _, l := range idxLeaves {
			p, err := archive.PathTo(loaded.Entries, l.EntryID)
			if err != nil {
				continue
			}
			want := ""
			for _, e := range p {
				if e.Role == "user" {
					want = e.ID
				}
			}
			got := ""
			if l.LastUser != nil {
				got = loaded.Entries[*l.LastUser].ID
			}
			if got != want {
				rt.Fatalf("leaf %s: last user message %q, want %q", l.EntryID, got, want)
			}
		}
		// Depth of a leaf is its path length when the path is whole.
		for _, l := range idxLeaves {
			p, err := archive.PathTo(loaded.Entries, l.EntryID)
			switch {
			case err == nil && (l.Depth == nil || *l.Depth != len(p)):
				rt.Fatalf("leaf %s depth %v, want %d", l.EntryID, l.Depth, len(p))
			case err != nil && l.Depth != nil:
				rt.Fatalf("leaf %s depth %d, want none (path error %v)", l.EntryID, *l.Depth, err)
			}
		}
	})
}

// Chains deeper than 10,000 entries, healthy or ending in a long cycle, give
// the same answer both ways, in SQLite and PostgreSQL; no recursion limit
// is hit.
func TestPathCTE_LongChains(t *testing.T) { forEachBackend(t, testPathCTELongChains) }

func testPathCTELongChains(t *testing.T, db string) {
	ctx := context.Background()
	dir := t.TempDir()
	a := mustOpenArchive(t, db)
	const depth = 12000
	build := func(cycle bool) []genEdge {
		edges := make([]genEdge, depth)
		for i := range edges {
			edges[i].id = fmt.Sprintf("n%d", i)
			if i > 0 {
				p := edges[i-1].id
				edges[i].parent = &p
			}
		}
		if cycle { // the root now points at the last entry
			p := edges[depth-1].id
			edges[0].parent = &p
		}
		return edges
	}
	for _, cycle := range []bool{false, true} {
		file := testutil.MustWriteFile(t, dir, fmt.Sprintf("chain-%v.jsonl", cycle), plainFile(build(cycle)))
		if _, _, _, err := a.IndexFile(ctx, file, false); err != nil {
			t.Fatal(err)
		}
		s, _ := archive.DBOf(a).SessionByPath(ctx, file)
		loaded, err := archive.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		leaf := fmt.Sprintf("n%d", depth-1)
		want := pathToAnswer(loaded.Entries, leaf)
		got := cteAnswer(ctx, archive.DBOf(a), s.SID, leaf)
		if got != want {
			t.Errorf("cycle=%v: CTE answer differs from PathTo (%d vs %d bytes)", cycle, len(got), len(want))
		}
		if !cycle && strings.Count(got, ">") != depth-1 {
			t.Errorf("path length = %d, want %d", strings.Count(got, ">")+1, depth)
		}
		if cycle && !strings.HasPrefix(got, "cycle") {
			t.Errorf("cycle chain answer = %.80s, want a cycle error", got)
		}
	}
}
