package index

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/internal/testutil"
)

// The vocabulary of the property test: Latin words that share prefixes and
// differ by accents and case, and CJK characters that form words.
var propWords = []string{"alpha", "alphabet", "Alpha", "ＡＬＰＨＡ", "beta", "gamma", "café", "cafe", "CAFÉ", "ﬁle", "file", "数", "据", "库", "索", "引", "数据", "ｶﾀ", "カタ", "デ", "テ", "ﾃﾞ", "が", "か", "ά"}

var propSeps = []string{" ", "  ", ".", "\n", ":", "", "-"}

// TestSearch_MatchesNaiveScan checks the full-text index against a direct
// reading of every text: for random texts and random queries of every form
// (words, phrases, prefixes, exclusions, OR), Search returns exactly the
// entries a scan of tokens finds.
func TestSearch_MatchesNaiveScan(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(rt, "entries")
		var texts []string
		entries := make([]Entry, n)
		for i := range entries {
			var b strings.Builder
			for k := rapid.IntRange(0, 8).Draw(rt, "words"); k > 0; k-- {
				b.WriteString(rapid.SampledFrom(propWords).Draw(rt, "w"))
				b.WriteString(rapid.SampledFrom(propSeps).Draw(rt, "sep"))
			}
			texts = append(texts, b.String())
			ts := int64(1_700_000_000_000 + i*1000)
			entries[i] = Entry{Seq: i, EntryID: fmt.Sprintf("e%d", i), Type: "message", TsMs: &ts, Text: []byte(b.String())}
		}
		if _, err := d.Replace(ctx, &Session{Path: "/prop.jsonl", SessionID: "prop", Dialect: "plain", State: "ok"}, entries, nil, nil); err != nil {
			rt.Fatal(err)
		}
		query := drawQuery(rt)
		q, err := ParseQuery(query)
		if err != nil {
			rt.Skip("bad_query")
		}
		res, err := d.Search(ctx, SearchParams{Query: q, Limit: 1000, NoDedupe: true})
		if err != nil {
			rt.Fatalf("Search(%q): %v", query, err)
		}
		var got, want []int
		for _, h := range res.Hits {
			got = append(got, h.Seq)
		}
		for i, text := range texts {
			if q.Matches(text) {
				want = append(want, i)
			}
		}
		sort.Ints(got)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			rt.Fatalf("Search(%q) [%s] = %v, want %v; texts %q", query, q.Match(), got, want, texts)
		}
	})
}

func drawQuery(rt *rapid.T) string {
	var parts []string
	for k := rapid.IntRange(1, 3).Draw(rt, "terms"); k > 0; k-- {
		w := rapid.SampledFrom(propWords).Draw(rt, "qw")
		switch rapid.IntRange(0, 5).Draw(rt, "form") {
		case 1:
			w = `"` + w + " " + rapid.SampledFrom(propWords).Draw(rt, "qw2") + `"`
		case 2:
			r := []rune(w)
			w = string(r[:rapid.IntRange(1, len(r)).Draw(rt, "cut")]) + "*"
		case 3:
			w = "-" + w
		case 4:
			w = w + " OR " + rapid.SampledFrom(propWords).Draw(rt, "qw3")
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// TestSearch_TotalsAgree checks the total rule (docs/search.md "Totals") over
// generated corpora of up to 3 sessions, some holding fork copies of the
// same entries, with up to 700 entries of a small vocabulary so that
// common words pass CountLimit: for a random query, every limit up to
// CountLimit gives one total, either order gives the total of the other,
// the total never goes down as the offset grows and is at least
// offset+hits, and an exact total is the number of hits.
func TestSearch_TotalsAgree(t *testing.T) {
	testutil.RapidChecks(t, 20, 100)
	ctx := context.Background()
	d := mustOpen(t, testutil.MustTempDB(t))
	vocab := []string{"alpha", "beta", "gamma", "delta"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 700).Draw(rt, "entries")
		copies := rapid.IntRange(1, 3).Draw(rt, "copies")
		texts := make([]string, n)
		for i := range texts {
			var ws []string
			for k := rapid.IntRange(0, 3).Draw(rt, "words"); k > 0; k-- {
				ws = append(ws, rapid.SampledFrom(vocab).Draw(rt, "w"))
			}
			texts[i] = strings.Join(ws, " ")
		}
		for s := 0; s < 3; s++ {
			entries := make([]Entry, n)
			for i := range entries {
				id := fmt.Sprintf("e%d", i)
				if s >= copies {
					id = fmt.Sprintf("x%d_%d", s, i)
				}
				ts := int64(1_700_000_000_000 + i*1000)
				entries[i] = Entry{Seq: i, EntryID: id, Type: "message", TsMs: &ts, Length: len(texts[i]), CRC: uint32(i), Text: []byte(texts[i])}
			}
			created := int64(s)
			path := fmt.Sprintf("/totals%d.jsonl", s)
			if _, err := d.Replace(ctx, &Session{Path: path, SessionID: path, Dialect: "plain", State: "ok", CreatedMs: &created}, entries, nil, nil); err != nil {
				rt.Fatal(err)
			}
		}
		query := rapid.SampledFrom(vocab).Draw(rt, "q")
		if rapid.Bool().Draw(rt, "or") {
			query += " OR " + rapid.SampledFrom(vocab).Draw(rt, "q2")
		}
		q, err := ParseQuery(query)
		if err != nil {
			rt.Fatal(err)
		}
		noDedupe := rapid.Bool().Draw(rt, "nodedupe")
		search := func(limit, offset int, relevance bool) *SearchResult {
			res, err := d.Search(ctx, SearchParams{Query: q, Limit: limit, Offset: offset, Relevance: relevance, NoDedupe: noDedupe})
			if err != nil {
				rt.Fatalf("Search(%q, limit %d, offset %d): %v", query, limit, offset, err)
			}
			if len(res.Hits) > 0 && res.Total < offset+len(res.Hits) || !res.Exact && res.Total <= offset {
				rt.Fatalf("Search(%q, limit %d, offset %d): total %d < offset+%d hits (exact %v)", query, limit, offset, res.Total, len(res.Hits), res.Exact)
			}
			return res
		}
		all := search(100000, 0, false)
		if !all.Exact || all.Total != len(all.Hits) {
			rt.Fatalf("%q: every hit read (%d) but total %d exact %v", query, len(all.Hits), all.Total, all.Exact)
		}
		first := search(1, 0, false)
		for _, limit := range []int{1, 20, 50, CountLimit} {
			for _, rel := range []bool{false, true} {
				if r := search(limit, 0, rel); r.Total != first.Total || r.Exact != first.Exact {
					rt.Fatalf("%q limit %d relevance %v: total %d exact %v, limit 1 says %d %v", query, limit, rel, r.Total, r.Exact, first.Total, first.Exact)
				}
			}
		}
		last := 0
		for _, offset := range []int{0, 10, 100, CountLimit - 20, CountLimit, 400, 1000, 2500} {
			recent, relevant := search(20, offset, false), search(20, offset, true)
			if recent.Total != relevant.Total || recent.Exact != relevant.Exact {
				rt.Fatalf("%q offset %d: recent total %d %v, relevance %d %v", query, offset, recent.Total, recent.Exact, relevant.Total, relevant.Exact)
			}
			if recent.Exact && recent.Total != all.Total {
				rt.Fatalf("%q offset %d: exact total %d, there are %d hits", query, offset, recent.Total, all.Total)
			}
			if recent.Total < last {
				rt.Fatalf("%q offset %d: total %d went down from %d", query, offset, recent.Total, last)
			}
			if !recent.Exact && recent.Total > all.Total {
				rt.Fatalf("%q offset %d: lower bound %d above the %d hits", query, offset, recent.Total, all.Total)
			}
			last = recent.Total
		}
	})
}
