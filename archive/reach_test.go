package archive_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/jsonl"
)

// For random trees (duplicate ids, missing parents, cycles, many roots
// and branches), the leaves the index says an entry reaches are exactly
// the leaves whose PathTo holds it, in file order, in SQLite and in
// PostgreSQL (SPEC §4, §4.2, §10); and search places each hit as PathTo
// does: active when it is on the path to the active leaf, abandoned
// otherwise, with those leaves, and --branch active and abandoned split
// the hits between them.
func TestLeavesThrough_EqualsPathTo(t *testing.T) { forEachBackend(t, testLeavesThroughEqualsPathTo) }

func testLeavesThroughEqualsPathTo(t *testing.T, db string) {
	ctx := context.Background()
	a := mustOpenArchive(t, db)
	file := filepath.Join(t.TempDir(), "s.jsonl")
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(rt, "n")
		var edges []genEdge
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("e%d", i)
			if rapid.IntRange(0, 25).Draw(rt, "dupChance") == 0 {
				id = fmt.Sprintf("e%d", rapid.IntRange(0, n-1).Draw(rt, "dupOf"))
			}
			var parent *string
			switch k := rapid.IntRange(0, 12).Draw(rt, "parentKind"); {
			case k == 0: // a root
			case k == 1: // any id: cycles and self-parents
				p := fmt.Sprintf("e%d", rapid.IntRange(0, n-1).Draw(rt, "anyParent"))
				parent = &p
			case k == 2: // a parent that is not there
				p := "missing"
				parent = &p
			default: // an earlier entry: a tree with branches
				if i > 0 {
					p := edges[rapid.IntRange(0, i-1).Draw(rt, "earlier")].id
					parent = &p
				}
			}
			edges = append(edges, genEdge{id: id, parent: parent})
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
		// The reference: every leaf whose PathTo is whole, with its path.
		paths := map[string][]string{}
		var order []string
		for _, l := range archive.Leaves(loaded.Entries) {
			p, err := archive.PathTo(loaded.Entries, l.ID)
			if err != nil {
				continue
			}
			for _, e := range p {
				paths[l.ID] = append(paths[l.ID], e.ID)
			}
			order = append(order, l.ID)
		}
		through := func(id string) []string {
			var out []string
			for _, l := range order {
				if slices.Contains(paths[l], id) {
					out = append(out, l)
				}
			}
			return out
		}
		var onActive []string
		activeWhole := false
		if s.ActiveLeaf != nil {
			if p, err := archive.PathTo(loaded.Entries, *s.ActiveLeaf); err == nil {
				activeWhole = true
				for _, e := range p {
					onActive = append(onActive, e.ID)
				}
			}
		}
		for i, e := range edges {
			got, err := archive.DBOf(a).LeavesThrough(ctx, s.SID, e.id)
			if err != nil {
				rt.Fatalf("LeavesThrough(%s): %v", e.id, err)
			}
			var ids []string
			for _, l := range got {
				ids = append(ids, l.EntryID)
			}
			want := through(e.id)
			if !slices.Equal(ids, want) {
				rt.Fatalf("LeavesThrough(%s) = %v, want the leaves whose PathTo holds it: %v", e.id, ids, want)
			}
			// The walk over runs answers the same.
			reach, err := archive.DBOf(a).ReachOf(ctx, s.SID)
			if err != nil {
				rt.Fatal(err)
			}
			byRuns, err := reach.LeavesThrough(ctx, e.id)
			if err != nil {
				rt.Fatal(err)
			}
			ids = nil
			for _, l := range byRuns {
				ids = append(ids, l.EntryID)
			}
			if !slices.Equal(ids, want) {
				rt.Fatalf("Reach.LeavesThrough(%s) = %v, want the leaves whose PathTo holds it: %v", e.id, ids, want)
			}
			// Search finds the entry by its text (m<line>) and places it.
			res, err := a.Search(ctx, archive.SearchOptions{Query: fmt.Sprintf("m%d", i), Session: file, Limit: 100})
			if err != nil {
				rt.Fatal(err)
			}
			var hit *archive.Hit
			for k := range res.Hits {
				if res.Hits[k].Line == loaded.Entries[i].Line {
					hit = &res.Hits[k]
				}
			}
			if hit == nil {
				rt.Fatalf("search m%d: no hit on line %d", i, loaded.Entries[i].Line)
			}
			wantLeaves := want[:min(len(want), archive.HitLeaves)]
			if !slices.Equal(hit.Leaves, wantLeaves) || hit.LeavesTotal != len(want) {
				rt.Fatalf("hit %s: leaves %v of %d, want %v of %d", e.id, hit.Leaves, hit.LeavesTotal, wantLeaves, len(want))
			}
			if s.DuplicateID == nil && activeWhole {
				wantBranch := archive.BranchAbandoned
				if slices.Contains(onActive, e.id) {
					wantBranch = archive.BranchActive
				}
				if hit.Branch != wantBranch {
					rt.Fatalf("hit %s: branch %q, want %q (active path %v)", e.id, hit.Branch, wantBranch, onActive)
				}
			}
			if hit.Branch != archive.BranchActive && hit.Branch != archive.BranchAbandoned {
				rt.Fatalf("hit %s: branch %q", e.id, hit.Branch)
			}
		}
		// --branch active and abandoned split the hits of a query that
		// matches every entry.
		every := make([]string, len(edges))
		for i := range every {
			every[i] = fmt.Sprintf("m%d", i)
		}
		lines := func(o archive.SearchOptions) []int {
			o.Query, o.Session, o.Limit, o.NoDedupe = strings.Join(every, " OR "), file, 1000, true
			res, err := a.Search(ctx, o)
			if err != nil {
				rt.Fatal(err)
			}
			var out []int
			for _, h := range res.Hits {
				if o.Active && h.Branch != archive.BranchActive || o.Abandoned && h.Branch != archive.BranchAbandoned {
					rt.Fatalf("--branch active %t abandoned %t: hit on line %d is %q", o.Active, o.Abandoned, h.Line, h.Branch)
				}
				out = append(out, h.Line)
			}
			slices.Sort(out)
			return out
		}
		all, both := lines(archive.SearchOptions{}), append(lines(archive.SearchOptions{Active: true}), lines(archive.SearchOptions{Abandoned: true})...)
		slices.Sort(both)
		if !slices.Equal(all, both) {
			rt.Fatalf("hits on lines %v; active and abandoned together %v", all, both)
		}
	})
}

// For random Claude Code files whose lines take the shapes the kind rules
// tell apart (kindsFile), each search hit is placed as the pure reference
// places its entry (SPEC §4.2, in SQLite and PostgreSQL): active on the
// path to the active leaf, an artifact of the kind jsonl.Kinds gives its
// path, else abandoned; its leaves are the real leaves whose PathTo holds
// it; and the hits --branch active and abandoned keep, with the
// artifacts, are all of them.
func TestSearchPlaces_EqualKinds(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		a := mustOpenArchive(t, db)
		dir := t.TempDir()
		round := 0
		rapid.Check(t, func(rt *rapid.T) {
			round++
			file := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", round))
			defer os.Remove(file)
			if err := os.WriteFile(file, []byte(strings.Join(kindsFile(rt), "\n")+"\n"), 0o644); err != nil {
				rt.Fatal(err)
			}
			if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
				rt.Fatal(err)
			}
			pure, err := archive.Load(file)
			if err != nil {
				rt.Fatal(err)
			}
			active := archive.ActiveLeaf(pure.Dialect, pure.Entries)
			ref := jsonl.Kinds(pure.Dialect, pure.Entries, active)
			byLine := map[int]int{}
			for i, e := range pure.Entries {
				byLine[e.Line] = i
			}
			var onActive []string
			if p, err := archive.PathTo(pure.Entries, active); err == nil {
				for _, e := range p {
					onActive = append(onActive, e.ID)
				}
			}
			paths := map[string][]string{}
			var real []string
			for _, l := range archive.Leaves(pure.Entries) {
				p, err := archive.PathTo(pure.Entries, l.ID)
				if err != nil || ref.OnPath[byLine[l.Line]] != jsonl.KindBranch {
					continue
				}
				for _, e := range p {
					paths[l.ID] = append(paths[l.ID], e.ID)
				}
				real = append(real, l.ID)
			}
			hits := func(o archive.SearchOptions) []archive.Hit {
				o.Query, o.Session, o.Limit, o.NoDedupe = "ok OR r OR prompt OR caveat OR clear OR hook OR read", file, 1000, true
				res, err := a.Search(ctx, o)
				if err != nil {
					rt.Fatal(err)
				}
				return res.Hits
			}
			all := hits(archive.SearchOptions{})
			var artifacts []int
			for _, h := range all {
				i, ok := byLine[h.Line]
				if !ok {
					rt.Fatalf("hit on line %d: no entry there", h.Line)
				}
				e := pure.Entries[i]
				var want []string
				if ref.OnPath[i] == jsonl.KindBranch {
					for _, l := range real {
						if slices.Contains(paths[l], e.ID) {
							want = append(want, l)
						}
					}
				}
				if got := h.Leaves; h.LeavesTotal != len(want) || !slices.Equal(got, want[:min(len(want), archive.HitLeaves)]) {
					rt.Fatalf("hit %s (line %d): real leaves %v of %d, want %v", e.ID, e.Line, got, h.LeavesTotal, want)
				}
				wantBranch, wantKind := archive.BranchAbandoned, ""
				switch {
				case onActive == nil:
					wantBranch = h.Branch // no whole active path: PathTo places nothing
				case slices.Contains(onActive, e.ID):
					wantBranch = archive.BranchActive
				case ref.OnPath[i] != jsonl.KindBranch:
					wantBranch, wantKind = archive.BranchArtifact, ref.OnPath[i].String()
				}
				if h.Branch != wantBranch || wantKind != "" && h.Artifact != wantKind {
					rt.Fatalf("hit %s (line %d): %s %q, want %s %q", e.ID, e.Line, h.Branch, h.Artifact, wantBranch, wantKind)
				}
				if h.Branch == archive.BranchArtifact {
					artifacts = append(artifacts, h.Line)
				}
			}
			lines := func(hs []archive.Hit) []int {
				var out []int
				for _, h := range hs {
					out = append(out, h.Line)
				}
				slices.Sort(out)
				return out
			}
			split := append(append(lines(hits(archive.SearchOptions{Active: true})), lines(hits(archive.SearchOptions{Abandoned: true}))...), artifacts...)
			slices.Sort(split)
			if got := lines(all); !slices.Equal(got, split) {
				rt.Fatalf("hits on lines %v; active, abandoned and artifacts together %v", got, split)
			}
		})
	})
}
