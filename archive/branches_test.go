package archive_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// BranchPoints counts the leaves of each branch in one pass; these are the
// shapes where a pass can go wrong: a comb (every spine entry a branch
// point), a cycle with branches hanging off it, repeated ids.
func TestBranchPoints_Counts(t *testing.T) {
	p := func(s string) *string { return &s }
	tests := []struct {
		name  string
		edges []genEdge
		want  string // per branch point: id:leaves(child:leaves ...)
	}{
		{name: "comb", edges: []genEdge{
			{id: "s0"}, {id: "x0", parent: p("s0")}, {id: "s1", parent: p("s0")}, {id: "x1", parent: p("s1")},
			{id: "s2", parent: p("s1")}, {id: "x2", parent: p("s2")}, {id: "s3", parent: p("s2")}},
			want: "s0:4(x0:1 s1:3) s1:3(x1:1 s2:2) s2:2(x2:1 s3:1)"},
		{name: "cycle with branches off it", edges: []genEdge{
			{id: "a"}, {id: "b", parent: p("c")}, {id: "c", parent: p("b")},
			{id: "d", parent: p("b")}, {id: "e", parent: p("b")}, {id: "f", parent: p("c")}, {id: "g", parent: p("c")}},
			want: "b:4(c:4 d:1 e:1) c:4(b:4 f:1 g:1)"},
		{name: "repeated id: children hang under the first", edges: []genEdge{
			{id: "r"}, {id: "x", parent: p("r")}, {id: "y", parent: p("r")}, {id: "x", parent: p("y")},
			{id: "k1", parent: p("x")}, {id: "k2", parent: p("x")}},
			want: "r:2(x:2 y:0) x:2(k1:1 k2:1)"}, // y's x is not a leaf (its id is a parent) and holds nothing
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			file := testutil.MustWriteFile(t, dir, "s.jsonl", plainFile(tt.edges))
			a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
			if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
				t.Fatal(err)
			}
			bs, err := a.BranchPoints(ctx, archive.Filter{Session: file})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range bs {
				var kids []string
				for _, br := range b.Branches {
					kids = append(kids, fmt.Sprintf("%s:%d", br.ID, br.Leaves))
				}
				got = append(got, fmt.Sprintf("%s:%d(%s)", b.ID, b.Leaves, strings.Join(kids, " ")))
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("BranchPoints = %s, want %s", g, tt.want)
			}
		})
	}
}

// Leaves come newest first by their own time; a leaf whose time cannot be
// read says nothing about when, so it comes last, not first.
func TestLeaves_NewestFirst(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	header := `{"type":"session","version":3,"id":"order-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n"
	lines := header +
		piLine("message", "r", "", "2026-01-01T00:00:01.000Z", msg("user", `"root"`)) +
		piLine("message", "old", "r", "2026-01-01T01:00:00.000Z", msg("user", `"old"`)) +
		strings.Replace(piLine("message", "none", "r", "x", msg("user", `"no time"`)), `"timestamp":"x"`, `"timestamp":"not a time"`, 1) +
		piLine("message", "new", "r", "2026-01-01T03:00:00.000Z", msg("user", `"new"`)) +
		piLine("message", "mid", "r", "2026-01-01T02:00:00.000Z", msg("user", `"mid"`))
	file := testutil.MustWriteFile(t, dir, "s.jsonl", []byte(lines))
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	ls, err := a.Leaves(ctx, archive.Filter{Session: file})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.EntryID)
	}
	if g := strings.Join(got, " "); g != "new mid old none" {
		t.Errorf("Leaves = %s, want new mid old none", g)
	}
}
