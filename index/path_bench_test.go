package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// BenchmarkPath measures DB.Path in process on an on-disk index, from the
// deepest leaf to its root, over linear runs ("runs") and one entry per
// step ("entries", the walk before migration 8), for a chain of 10,000
// and 100,000 entries and a comb of 100,000 (a spine of 50,000, each spine
// entry with a one-entry tooth written before the next spine entry, so
// every spine entry heads a run: the worst shape for runs). Run:
//
//	go test -run '^$' -bench BenchmarkPath ./index
func BenchmarkPath(b *testing.B) {
	for _, shape := range []struct {
		name  string
		n     int
		comb  bool
		depth int
	}{{"chain=10000", 10000, false, 10000}, {"chain=100000", 100000, false, 100000}, {"comb=100000", 100000, true, 50000}} {
		ctx := context.Background()
		d := mustOpen(b, testutil.MustTempDB(b))
		var es []Entry
		spine := ""
		for i := 0; len(es) < shape.n; i++ {
			id := fmt.Sprintf("c%06d", i)
			e := Entry{EntryID: id, Type: "message", Line: len(es) + 1, Offset: int64(len(es) * 100), Length: 99}
			if spine != "" {
				e.ParentID = ptr(spine)
			}
			es = append(es, e)
			if shape.comb {
				es = append(es, Entry{EntryID: "t" + id, ParentID: ptr(id), Type: "message", Line: len(es) + 1, Offset: int64(len(es) * 100), Length: 99})
			}
			spine = id
		}
		if _, err := d.Replace(ctx, &Session{Path: "/" + shape.name + ".jsonl", SessionID: shape.name, Dialect: "plain"}, es, nil, nil); err != nil {
			b.Fatal(err)
		}
		s, err := d.SessionByPath(ctx, "/"+shape.name+".jsonl")
		if err != nil {
			b.Fatal(err)
		}
		for _, walk := range []string{"runs", "entries"} {
			b.Run(shape.name+"/"+walk, func(b *testing.B) {
				pathOverEntries = walk == "entries"
				defer func() { pathOverEntries = false }()
				for b.Loop() {
					p, err := d.Path(ctx, s.SID, spine)
					if err != nil || len(p) != shape.depth {
						b.Fatalf("Path = %d entries, %v; want %d", len(p), err, shape.depth)
					}
				}
			})
		}
	}
}
