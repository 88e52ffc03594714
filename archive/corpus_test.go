package archive_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// The real pi session in ../shared/corpus indexes cleanly, and every leaf's
// path by CTE equals PathTo over the file. The corpus is read where it is,
// never copied into the project.
func TestCorpus_IndexesAndVerifies(t *testing.T) {
	root := testutil.MustShared(t, "corpus/pi")
	ctx := context.Background()
	a := mustOpenArchive(t, testutil.MustTempDB(t))
	sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files == 0 || sum.Indexed != sum.Files || sum.Entries == 0 {
		t.Fatalf("Index = %+v, want every file indexed with entries", sum)
	}
	rep, err := a.Verify(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != sum.Files || rep.Leaves == 0 || rep.Mismatches != 0 || rep.Stale != 0 {
		t.Fatalf("Verify = %+v, want every session verified clean", rep)
	}
	sessions, _ := a.Sessions(ctx, "")
	for _, s := range sessions {
		if s.State != "ok" {
			t.Errorf("%s: state %s, want ok", s.Path, s.State)
		}
		_, msgs, err := a.Messages(ctx, s.Path, "")
		if err != nil || len(msgs) == 0 {
			t.Errorf("%s: messages = %d, %v", s.Path, len(msgs), err)
		}
	}
	// A second run reads nothing again.
	again, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}})
	if err != nil || again.Unchanged != sum.Files || again.Indexed != 0 {
		t.Fatalf("second Index = %+v, %v; want all unchanged", again, err)
	}
}

// Search over the real session finds exactly the entries a direct scan of
// their search text finds, for words of every frequency, phrases taken
// from the text, prefixes and exclusions.
func TestCorpus_SearchMatchesScan(t *testing.T) {
	root := testutil.MustShared(t, "corpus/pi")
	ctx := context.Background()
	a := mustOpenArchive(t, testutil.MustTempDB(t))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	type entryText struct {
		key  string
		text string
	}
	var texts []entryText
	freq := map[string]int{}
	var words []string
	sessions, _ := a.Sessions(ctx, "")
	for _, s := range sessions {
		entries, _, err := jsonl.ReadFile(s.Path, jsonl.Salvage)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			text := string(jsonl.AppendSearchText(nil, e.Raw))
			texts = append(texts, entryText{s.SessionID + "/" + e.ID, text})
			for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				if freq[w] == 0 {
					words = append(words, w)
				}
				freq[w]++
			}
		}
	}
	sort.SliceStable(words, func(i, j int) bool { return freq[words[i]] > freq[words[j]] })
	if len(words) < 100 {
		t.Fatalf("only %d distinct words in the corpus", len(words))
	}
	queries := []string{words[0], words[10], words[len(words)/2], words[len(words)-1],
		words[20] + " " + words[30], words[3] + " -" + words[5], words[40] + " OR " + words[len(words)/3]}
	for _, w := range words[50:60] {
		if len(w) > 4 {
			queries = append(queries, w[:4]+"*")
		}
	}
	// Phrases: two consecutive words of some entries.
	for i := 0; i < len(texts); i += len(texts) / 5 {
		f := strings.Fields(texts[i].text)
		if len(f) > 3 {
			queries = append(queries, `"`+f[1]+" "+f[2]+`"`)
		}
	}
	for _, query := range queries {
		q, err := index.ParseQuery(query)
		if err != nil {
			continue
		}
		var want []string
		for _, e := range texts {
			if q.Matches(e.text) {
				want = append(want, e.key)
			}
		}
		res, err := a.Search(ctx, archive.SearchOptions{Query: query, Limit: 100000, NoDedupe: true})
		if err != nil {
			t.Fatalf("Search(%q): %v", query, err)
		}
		var got []string
		for _, h := range res.Hits {
			if h.Type != "session" {
				got = append(got, h.SessionID+"/"+h.EntryID)
			}
		}
		sort.Strings(got)
		got = slices.Compact(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("Search(%q): %d hits, a scan finds %d", query, len(got), len(want))
		}
	}
}
