package archive_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// NewestLeaves(limit) is Leaves' first limit leaves, previews and all, and
// counts them all, for every limit.
func TestNewestLeaves_IsLeavesCut(t *testing.T) {
	ctx := context.Background()
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{filepath.Join("..", "testdata", "pi"), filepath.Join("..", "testdata", "claude"), filepath.Join("..", "testdata", "cases")}}); err != nil {
		t.Fatal(err)
	}
	all, err := a.Leaves(ctx, archive.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 10 {
		t.Fatalf("%d leaves, want the testdata's 10 or more", len(all))
	}
	for _, limit := range []int{1, 3, len(all) - 1, len(all), len(all) + 5} {
		got, total, err := a.NewestLeaves(ctx, archive.Filter{}, limit)
		if err != nil {
			t.Fatal(err)
		}
		want := all[:min(limit, len(all))]
		if total != len(all) || fmt.Sprint(leafRows(got)) != fmt.Sprint(leafRows(want)) {
			t.Fatalf("NewestLeaves(%d) = %d of %d:\n%v\nwant %d of %d:\n%v", limit, len(got), total, leafRows(got), len(want), len(all), leafRows(want))
		}
	}
}

func leafRows(ls []archive.Leaf) []string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%s/%s %v %q", l.Session.Path, l.EntryID, l.Active, l.Preview))
	}
	return out
}
