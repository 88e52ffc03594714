package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// BenchmarkSearch_Dedupe measures a search whose every match has fork
// copies: 50 sessions holding the same 4,000 entries, each matching
// "alpha", paged at growing limits. Grouping the copies and filling each
// hit's AlsoIn must cost in proportion to the rows read, not to page size
// times rows. Run:
//
//	go test ./index/ -run '^$' -bench Search_Dedupe -count 5
func BenchmarkSearch_Dedupe(b *testing.B) {
	ctx := context.Background()
	d, err := Open(ctx, testutil.MustTempDB(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	const entries, copies = 4000, 50
	for c := 0; c < copies; c++ {
		es := make([]Entry, entries)
		for i := range es {
			ts := int64(1_700_000_000_000 + i*1000)
			es[i] = Entry{Seq: i, EntryID: fmt.Sprintf("e%d", i), Type: "message", TsMs: &ts, Length: 10, CRC: uint32(i),
				Text: []byte(fmt.Sprintf("alpha n%d", i))}
		}
		created := int64(c)
		path := fmt.Sprintf("/s%02d.jsonl", c)
		if _, err := d.Replace(ctx, &Session{Path: path, SessionID: path, Dialect: "plain", State: "ok", CreatedMs: &created}, es, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	q, err := ParseQuery("alpha")
	if err != nil {
		b.Fatal(err)
	}
	for _, limit := range []int{500, 1000, 2000, 4000} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				res, err := d.Search(ctx, SearchParams{Query: q, Limit: limit})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Hits) != limit || len(res.Hits[0].AlsoIn) != copies-1 {
					b.Fatalf("%d hits, %d copies", len(res.Hits), len(res.Hits[0].AlsoIn))
				}
			}
		})
	}
}
