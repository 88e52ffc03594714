package index

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// storeTied stores a plain session at path with n entries whose text is
// "alpha", all at the Unix time tsMs, ids <prefix><i>.
func storeTied(t *testing.T, d *DB, path, prefix string, n int, tsMs int64) {
	t.Helper()
	entries := make([]Entry, n)
	for i := range entries {
		ts := tsMs
		entries[i] = Entry{Seq: i, EntryID: fmt.Sprintf("%s%d", prefix, i), Type: "message", TsMs: &ts, Length: 10, CRC: uint32(i),
			Text: []byte(fmt.Sprintf("alpha %s%d", prefix, i))}
	}
	if _, err := d.Replace(context.Background(), &Session{Path: path, SessionID: prefix, Dialect: "plain", State: "ok"}, entries, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// Hits that tie on their time come by session file path, then the later
// line first, on every page, in both databases, whatever order the
// sessions were indexed in: here more of them than a page's first read
// takes (CountLimit+1 rows), so that the read ends inside their second.
func TestSearch_TiesInOneOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *DB) {
		ctx := context.Background()
		const second = int64(1_700_000_000_000)
		// Indexed in the order z, a, m: not the path order.
		storeTied(t, d, "/p/z.jsonl", "z", 5, second+1000) // a second later: first
		storeTied(t, d, "/p/a.jsonl", "a", 200, second+500)
		storeTied(t, d, "/p/m.jsonl", "m", 200, second+500)
		storeTied(t, d, "/p/b.jsonl", "b", 100, second+200) // earlier in the same second: after a and m
		var want []string
		for _, s := range []struct {
			prefix string
			n      int
		}{{"z", 5}, {"a", 200}, {"m", 200}, {"b", 100}} {
			for i := s.n - 1; i >= 0; i-- {
				want = append(want, fmt.Sprintf("%s%d", s.prefix, i))
			}
		}
		q, err := ParseQuery("alpha")
		if err != nil {
			t.Fatal(err)
		}
		for _, page := range []struct{ offset, limit int }{{0, 3}, {0, 20}, {0, 505}, {190, 30}, {200, 10}, {395, 20}, {480, 50}} {
			res, err := d.Search(ctx, SearchParams{Query: q, Offset: page.offset, Limit: page.limit})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.EntryID)
			}
			w := want[page.offset:min(len(want), page.offset+page.limit)]
			if !slices.Equal(got, w) {
				t.Errorf("Search(alpha, offset %d, limit %d) = %q, want %q", page.offset, page.limit, got, w)
			}
		}
		// Ranked: every text scores the same (two words), so the ties
		// order them all.
		res, err := d.Search(ctx, SearchParams{Query: q, Relevance: true, Limit: 210})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.EntryID)
		}
		if !slices.Equal(got, want[:210]) {
			t.Errorf("Search(alpha, relevance, limit 210) = %q, want %q", got, want[:210])
		}
	})
}
