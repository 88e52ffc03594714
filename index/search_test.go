package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// manyEntries stores a session at path with n entries whose text is
// "alpha <i>", one second apart, ids e<i>.
func manyEntries(t *testing.T, d *DB, path string, n int) {
	t.Helper()
	entries := make([]Entry, n)
	for i := range entries {
		ts := int64(1_700_000_000_000 + i*1000)
		entries[i] = Entry{Seq: i, EntryID: fmt.Sprintf("e%d", i), Type: "message", TsMs: &ts, Length: 10, CRC: uint32(i),
			Text: []byte(fmt.Sprintf("alpha n%d", i))}
	}
	created := int64(len(path))
	if _, err := d.Replace(context.Background(), &Session{Path: path, SessionID: path, Dialect: "plain", State: "ok", CreatedMs: &created}, entries, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// Past CountLimit hits the total is a lower bound (CountLimit+1 hits
// counted, fork copies once, or one more than the page asked for reaches),
// the same for either order, and pages still come newest first.
func TestSearch_CountLimitAndPages(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))
	manyEntries(t, d, "/a.jsonl", CountLimit+300)
	manyEntries(t, d, "/copy.jsonl", CountLimit+300) // the same entries: fork copies
	q, _ := ParseQuery("alpha")
	for _, tt := range []struct {
		name  string
		p     SearchParams
		total int
		exact bool
		first string
		also  int
	}{
		{"recent", SearchParams{Query: q, Limit: 5}, CountLimit + 1, false, fmt.Sprintf("e%d", CountLimit+299), 1},
		{"no dedupe", SearchParams{Query: q, Limit: 5, NoDedupe: true}, CountLimit + 1, false, fmt.Sprintf("e%d", CountLimit+299), 0},
		// Counted one past as far as the page reaches.
		{"deep page", SearchParams{Query: q, Limit: 5, Offset: CountLimit}, CountLimit + 6, false, "e299", 1},
		{"relevance", SearchParams{Query: q, Limit: 5, Relevance: true}, CountLimit + 1, false, "", 1},
		{"few", SearchParams{Query: mustQuery(t, "n7"), Limit: 5}, 1, true, "e7", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := d.Search(ctx, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != tt.total || res.Exact != tt.exact {
				t.Errorf("total %d exact %v, want %d %v", res.Total, res.Exact, tt.total, tt.exact)
			}
			if len(res.Hits) != min(5, tt.total) {
				t.Fatalf("%d hits, want %d", len(res.Hits), min(5, tt.total))
			}
			if tt.first != "" && res.Hits[0].EntryID != tt.first {
				t.Errorf("first hit %s, want %s", res.Hits[0].EntryID, tt.first)
			}
			if got := len(res.Hits[0].AlsoIn); got != tt.also {
				t.Errorf("also_in %v, want %d sessions", res.Hits[0].AlsoIn, tt.also)
			}
			if tt.also == 1 && res.Hits[0].Path != "/a.jsonl" {
				t.Errorf("a copy is shown from the session created first (/a.jsonl), got %s", res.Hits[0].Path)
			}
		})
	}
}

func mustQuery(t *testing.T, s string) *Query {
	t.Helper()
	q, err := ParseQuery(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// A page of more hits than SQLite binds variables in one statement
// (32,766) is filled in batches, with every hit's fork copies.
func TestSearch_HugePage(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))
	const n = 33_000
	manyEntries(t, d, "/a.jsonl", n)
	manyEntries(t, d, "/copy.jsonl", 10) // copies of e0..e9
	res, err := d.Search(ctx, SearchParams{Query: mustQuery(t, "alpha"), Limit: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != n || res.Total != n || !res.Exact {
		t.Fatalf("%d hits, total %d exact %v, want %d exact", len(res.Hits), res.Total, res.Exact, n)
	}
	copies := 0
	for _, h := range res.Hits {
		copies += len(h.AlsoIn)
	}
	if copies != 10 {
		t.Errorf("%d hits name a fork copy, want 10", copies)
	}
}

// The number of hits is the caller's to choose (archive.DefaultSearchLimit
// is the one default): a limit under 1 is refused, not taken as a default
// of the index's own.
func TestSearch_LimitUnderOne(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))
	manyEntries(t, d, "/a.jsonl", 30)
	q, _ := ParseQuery("alpha")
	for _, limit := range []int{0, -1} {
		if res, err := d.Search(ctx, SearchParams{Query: q, Limit: limit}); err == nil {
			t.Errorf("Search(limit %d) = %d hits, want an error", limit, len(res.Hits))
		}
	}
	if res, err := d.Search(ctx, SearchParams{Query: q, Limit: 1}); err != nil || len(res.Hits) != 1 {
		t.Errorf("Search(limit 1) = %v, %v; want 1 hit", res, err)
	}
}
