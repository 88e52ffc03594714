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
