package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/testutil"
)

// writeSession writes a pi session of n entries (testutil.PiSessionEntries)
// as root/name and returns its path.
func writeSession(tb testing.TB, root, name string, n int) string {
	tb.Helper()
	return testutil.MustWriteFile(tb, root, name, testutil.PiSessionEntries(n, int64(n)))
}

// pageInfo is a page's "page" member.
type pageInfo struct {
	From, Count, Of int
}

// allPages calls tool with args, then again with each next_cursor, and
// returns the pages. Every page must be within budget, say where it
// starts and how many it holds, and carry next_cursor exactly while
// elements remain.
func allPages(tb testing.TB, c *sdk.ClientSession, tool string, args map[string]any, budget int, list string) []map[string]json.RawMessage {
	tb.Helper()
	var pages []map[string]json.RawMessage
	at := 0
	for cursor := ""; ; {
		a := map[string]any{"budget": budget}
		for k, v := range args {
			a[k] = v
		}
		if cursor != "" {
			a["cursor"] = cursor
		}
		r := call(tb, c, tool, a)
		if r.error {
			tb.Fatalf("%s page %d: %s", tool, len(pages), r.text)
		}
		if len(r.text[0]) > budget {
			tb.Fatalf("%s page %d: %d bytes, over the budget of %d", tool, len(pages), len(r.text[0]), budget)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.text[0]), &m); err != nil {
			tb.Fatalf("%s page %d: %v", tool, len(pages), err)
		}
		pages = append(pages, m)
		var p pageInfo
		if err := json.Unmarshal(m["page"], &p); err != nil {
			tb.Fatalf("%s page %d: no page member (%v) in %.300s", tool, len(pages)-1, err, r.text[0])
		}
		var elems []json.RawMessage
		json.Unmarshal(m[list], &elems)
		if p.From != at || p.Count != len(elems) || p.Count == 0 && at < p.Of {
			tb.Fatalf("%s page %d: page %+v with %d elements, want from %d", tool, len(pages)-1, p, len(elems), at)
		}
		at += p.Count
		cursor = ""
		json.Unmarshal(m["next_cursor"], &cursor)
		if (cursor == "") != (at == p.Of) {
			tb.Fatalf("%s page %d: next_cursor %q with %d of %d given", tool, len(pages)-1, cursor, at, p.Of)
		}
		if cursor == "" {
			return pages
		}
	}
}

// joined is the pages made one document again: their paged lists
// concatenated, the page and cursor members left out.
func joined(tb testing.TB, pages []map[string]json.RawMessage, lists ...string) []byte {
	tb.Helper()
	whole := map[string]json.RawMessage{}
	all := map[string][]json.RawMessage{}
	for i, p := range pages {
		for k, v := range p {
			switch {
			case k == "page" || k == "next_cursor":
			case contains(lists, k):
				var elems []json.RawMessage
				if err := json.Unmarshal(v, &elems); err != nil {
					tb.Fatalf("page %d: %s: %v", i, k, err)
				}
				all[k] = append(all[k], elems...)
			case i == 0:
				whole[k] = v
			case string(canonical(tb, whole[k])) != string(canonical(tb, v)):
				tb.Fatalf("page %d: %s is %s, page 0 said %s", i, k, v, whole[k])
			}
		}
	}
	for _, k := range lists {
		if all[k] == nil {
			all[k] = []json.RawMessage{}
		}
		whole[k], _ = json.Marshal(all[k])
	}
	b, _ := json.Marshal(whole)
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// written is a builder's answer as the command line writes it:
// written(t)(jsondoc.PathTo(...)).
func written(tb testing.TB) func(v any, err error) []byte {
	return func(v any, err error) []byte {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		var b strings.Builder
		if err := jsondoc.WriteStream(&b, v); err != nil {
			tb.Fatal(err)
		}
		return []byte(b.String())
	}
}

// Pages of a 1,000-entry session, made one again, are the whole answer:
// nothing cut, repeated or left out, for every tool that pages it.
func TestPaging_1000Entries(t *testing.T) {
	root := t.TempDir()
	file := writeSession(t, root, "long.jsonl", 1000)
	f := &fixture{root: root, db: testutil.MustTempDB(t)}
	mustIndex(t, f.db, root)
	f.c = mustConnect(t, f.db)
	ctx := context.Background()
	a, err := archive.Open(ctx, f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, err := a.Resolve(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	id := s.SessionID
	msgs, err := jsondoc.MessagesTo(ctx, a, id, "")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := jsondoc.Tree(ctx, a, id, archive.TreeOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	var flat strings.Builder
	jsondoc.WriteTreeFlat(&flat, id, tree)
	search, err := jsondoc.RunSearch(ctx, a, archive.SearchOptions{Query: "the", Sort: "recent", Limit: 150}, jsondoc.Opener{Grove: "grove"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool   string
		args   map[string]any
		budget int
		lists  []string
		want   []byte
	}{
		{"messages", map[string]any{"session": id}, 24 << 10, []string{"messages", "entryIds"},
			written(t)(map[string]any{"session": id, "leaf": msgs.Leaf, "messages": msgs.Messages, "entryIds": msgs.EntryIDs()}, nil)},
		{"path", map[string]any{"session": id}, 1024, []string{"path"}, written(t)(jsondoc.PathTo(ctx, a, id, ""))},
		{"context", map[string]any{"session": id}, 24 << 10, []string{"messages", "keptEntryIds"}, written(t)(jsondoc.ContextAt(ctx, a, id, "", false))},
		{"tree", map[string]any{"session": id, "flat": true, "full": true}, 8 << 10, []string{"nodes"}, []byte(flat.String())},
		{"leaves", map[string]any{"session": id}, 1024, []string{"leaves"}, written(t)(jsondoc.ListLeaves(ctx, a, archive.Filter{Session: id}))},
		{"branches", map[string]any{"session": id}, 1024, []string{"branches"}, written(t)(jsondoc.ListBranches(ctx, a, archive.Filter{Session: id}))},
		{"search", map[string]any{"query": "the", "limit": 150}, 4096, []string{"hits"}, written(t)(search, nil)},
	} {
		start := time.Now()
		pages := allPages(t, f.c, c.tool, c.args, c.budget, c.lists[0])
		t.Logf("%s: %d pages in %v", c.tool, len(pages), time.Since(start))
		if len(pages) < 3 {
			t.Errorf("%s: %d pages of %d bytes: the test pages too little", c.tool, len(pages), c.budget)
		}
		if got := joined(t, pages, c.lists...); !jsonEqual(t, got, c.want) {
			t.Errorf("%s: the %d pages together are not the answer:\n got %.600s\nwant %.600s", c.tool, len(pages), got, c.want)
		}
	}
}

// An element too large for the budget is over_budget, naming it, with a
// cursor that goes on after it; a larger budget takes it.
func TestPaging_OverBudget(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("x", 3000)
	testutil.MustWriteFile(t, root, "big.jsonl", []byte(`{"type":"session","version":3,"id":"big-1","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/w"}
{"type":"message","id":"e1","parentId":null,"timestamp":"2026-03-03T08:00:01.000Z","message":{"role":"user","content":"small"}}
{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-03-03T08:00:02.000Z","message":{"role":"user","content":"`+big+`"}}
{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-03-03T08:00:03.000Z","message":{"role":"user","content":"small again"}}
`))
	db := testutil.MustTempDB(t)
	mustIndex(t, db, root)
	c := mustConnect(t, db)
	first := must(t, c, "messages", map[string]any{"session": "big-1", "budget": 1024})
	var p pageInfo
	var cursor string
	json.Unmarshal(first["page"], &p)
	json.Unmarshal(first["next_cursor"], &cursor)
	if p != (pageInfo{0, 1, 3}) || cursor == "" {
		t.Fatalf("first page: %+v, cursor %q", p, cursor)
	}
	e := errorObject(t, c, "messages", map[string]any{"session": "big-1", "budget": 1024, "cursor": cursor})
	msg, _ := e["message"].(string)
	if e["code"] != "over_budget" || !strings.Contains(msg, `message 1 of the answer (entry "e2")`) || e["cursor"] == nil {
		t.Fatalf("the large message: %v", e)
	}
	after := must(t, c, "messages", map[string]any{"session": "big-1", "budget": 1024, "cursor": e["cursor"]})
	json.Unmarshal(after["page"], &p)
	if p != (pageInfo{2, 1, 3}) || after["next_cursor"] != nil || !strings.Contains(string(after["entryIds"]), "e3") {
		t.Errorf("after the large message: %+v %s", p, after["entryIds"])
	}
	larger := must(t, c, "messages", map[string]any{"session": "big-1", "budget": 8192, "cursor": cursor})
	if !strings.Contains(string(larger["messages"]), big) {
		t.Errorf("with a larger budget the large message is not there: %.200s", larger["messages"])
	}
}

// A cursor goes on with the answer it came from, at the leaf its first
// page read, whatever was appended since; it refuses other arguments;
// a tree that changed under it is stale_index.
func TestPaging_Cursor(t *testing.T) {
	root := t.TempDir()
	file := writeSession(t, root, "s.jsonl", 200)
	db := testutil.MustTempDB(t)
	mustIndex(t, db, root)
	c := mustConnect(t, db)
	sess := must(t, c, "sessions", map[string]any{})
	var list []jsondoc.Session
	json.Unmarshal(sess["sessions"], &list)
	id := list[0].ID

	first := must(t, c, "path", map[string]any{"session": id, "budget": 1024})
	var cursor, leaf string
	var p pageInfo
	json.Unmarshal(first["next_cursor"], &cursor)
	json.Unmarshal(first["leaf"], &leaf)
	json.Unmarshal(first["page"], &p)

	for _, bad := range []struct {
		tool string
		args map[string]any
		says string
	}{
		{"messages", map[string]any{"session": id}, "goes on with an answer of path, not of messages"},
		{"path", map[string]any{"session": id, "leaf": "x"}, "goes on with a call of other arguments"},
		{"path", map[string]any{"session": id[:6]}, "goes on with a call of other arguments"},
	} {
		bad.args["cursor"] = cursor
		e := errorObject(t, c, bad.tool, bad.args)
		if msg, _ := e["message"].(string); e["code"] != "usage" || !strings.Contains(msg, bad.says) {
			t.Errorf("%s %v: %v", bad.tool, bad.args, e)
		}
	}

	// The session grows and is indexed again: the pages go on with the
	// leaf the first one read, and the budget may change.
	appendTo(t, file, []byte(fmt.Sprintf(`{"type":"message","id":"new-1","parentId":%q,"timestamp":"2026-03-04T08:00:00.000Z","message":{"role":"user","content":"later"}}`+"\n", leaf)))
	mustIndex(t, db, root)
	if now := must(t, c, "path", map[string]any{"session": id, "budget": 1024}); string(now["leaf"]) == string(first["leaf"]) {
		t.Fatalf("the active leaf did not move: %s", now["leaf"])
	}
	next := must(t, c, "path", map[string]any{"session": id, "budget": 2048, "cursor": cursor})
	var q pageInfo
	json.Unmarshal(next["page"], &q)
	if string(next["leaf"]) != string(first["leaf"]) || q.From != p.Count || q.Of != p.Of {
		t.Errorf("the next page: leaf %s page %+v, want leaf %s from %d of %d", next["leaf"], q, first["leaf"], p.Count, p.Of)
	}

	tree := must(t, c, "tree", map[string]any{"session": id, "flat": true, "budget": 1024})
	cursor = ""
	json.Unmarshal(tree["next_cursor"], &cursor)
	if cursor == "" {
		t.Fatalf("the tree fits one page of 1024 bytes: %s", tree["page"])
	}
	appendTo(t, file, []byte(`{"type":"message","id":"new-2","parentId":"new-1","timestamp":"2026-03-04T08:00:01.000Z","message":{"role":"user","content":"later still"}}`+"\n"))
	mustIndex(t, db, root)
	e := errorObject(t, c, "tree", map[string]any{"session": id, "flat": true, "cursor": cursor})
	if msg, _ := e["message"].(string); e["code"] != "stale_index" || !strings.Contains(msg, "changed since the first page") {
		t.Errorf("a tree that changed under its cursor: %v", e)
	}
}

// A page of messages reads only its own messages from the file: a line
// changed in place after indexing (same size and time, so the index still
// takes the file for fresh) fails only the page that holds it, naming its
// line, and the pages before it answer.
func TestPaging_ReadsOnlyThePage(t *testing.T) {
	root := t.TempDir()
	var chain strings.Builder
	chain.WriteString(`{"type":"session","version":3,"id":"chain-1","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/w"}` + "\n")
	for i := 1; i <= 60; i++ {
		parent := "null"
		if i > 1 {
			parent = fmt.Sprintf(`"m%d"`, i-1)
		}
		fmt.Fprintf(&chain, `{"type":"message","id":"m%d","parentId":%s,"timestamp":"2026-03-03T08:00:%02d.000Z","message":{"role":"user","content":[{"type":"text","text":"message %d %s"}]}}`+"\n",
			i, parent, i%60, i, strings.Repeat("word ", 100))
	}
	file := testutil.MustWriteFile(t, root, "chain.jsonl", []byte(chain.String()))
	db := testutil.MustTempDB(t)
	mustIndex(t, db, root)
	c := mustConnect(t, db)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	last := len(lines) - 2 // the last entry (the split leaves "" after the final LF)
	i := strings.LastIndex(lines[last], `"text":"`) + len(`"text":"`)
	b := []byte(lines[last])
	b[i] ^= 0x01 // another letter, the same length
	lines[last] = string(b)
	if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"session": "chain-1", "budget": 2048}
	pages := 0
	for {
		r := call(t, c, "messages", args)
		if r.error {
			var e struct{ Error map[string]any }
			json.Unmarshal(r.doc, &e)
			if pages == 0 || e.Error["code"] != "stale_index" || e.Error["line"] != float64(last+1) {
				t.Fatalf("page %d: %s; want stale_index naming line %d after some pages", pages, r.doc, last+1)
			}
			return
		}
		pages++
		var m map[string]json.RawMessage
		json.Unmarshal(r.doc, &m)
		var cursor string
		json.Unmarshal(m["next_cursor"], &cursor)
		if cursor == "" {
			t.Fatalf("every page answered: the changed line %d was never read back", last+1)
		}
		args["cursor"] = cursor
	}
}

// leaves over many Claude Code sessions with sub-agent runs: the runs list
// of a whole archive is larger than a page, so each page carries the runs
// of the sessions whose leaves are on it (the answer failed over_budget at
// the default budget however the leaves were paged). The pages joined are
// jsondoc.ListLeaves' document: every leaf once, in order, and every run
// (on each page that holds a leaf of its session).
func TestPaging_LeavesCarryTheirRuns(t *testing.T) {
	root := t.TempDir()
	src, err := os.ReadFile(testutil.Testdata(t, "claude/7f3c2a10-0000-4000-8000-000000000001.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 150 {
		testutil.MustWriteFile(t, fmt.Sprintf("%s/projects/-p%03d", root, i), "7f3c2a10-0000-4000-8000-000000000001.jsonl", src)
	}
	db := testutil.MustTempDB(t)
	mustIndex(t, db, root)
	a, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	whole, err := jsondoc.ListLeaves(context.Background(), a, archive.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Runs) != 150 {
		t.Fatalf("the fixture's copies have %d runs, want 150", len(whole.Runs))
	}
	c := mustConnect(t, db)
	pages := allPages(t, c, "leaves", map[string]any{}, 16<<10, "leaves")
	var leaves, runs []string
	for i, p := range pages {
		var ls []struct{ ID, Path string }
		var rs []struct{ Root, Path string }
		json.Unmarshal(p["leaves"], &ls)
		json.Unmarshal(p["runs"], &rs)
		paths := map[string]bool{}
		for _, l := range ls {
			leaves = append(leaves, l.Path+"#"+l.ID)
			paths[l.Path] = true
		}
		for _, r := range rs {
			if !paths[r.Path] {
				t.Errorf("page %d carries a run of %s, whose leaves it does not hold", i, r.Path)
			}
			runs = append(runs, r.Path+"#"+r.Root)
		}
	}
	var wantLeaves, wantRuns []string
	for _, l := range whole.Leaves {
		wantLeaves = append(wantLeaves, l.Path+"#"+l.ID)
	}
	for _, r := range whole.Runs {
		wantRuns = append(wantRuns, r.Path+"#"+r.Root)
	}
	if len(pages) < 2 || strings.Join(leaves, " ") != strings.Join(wantLeaves, " ") {
		t.Errorf("%d pages holding %d leaves; want the %d of grove leaves --json, in order, over more than one page", len(pages), len(leaves), len(wantLeaves))
	}
	slices.Sort(runs)
	runs = slices.Compact(runs)
	slices.Sort(wantRuns)
	if !slices.Equal(runs, wantRuns) {
		t.Errorf("the pages hold %d runs, want the %d of grove leaves --json", len(runs), len(wantRuns))
	}
}

// The pages of a listing come from the answer its first page was cut
// from: sessions indexed between two pages (newer, so listed first) do not
// shift the rest, and the pages joined are the listing as it was at the
// first page, each session once (built anew for each page, the sessions
// that moved down came again on the next page).
func TestPaging_ListingIsOneSnapshot(t *testing.T) {
	root := t.TempDir()
	for i := range 120 {
		writeSession(t, root, fmt.Sprintf("old/s%03d.jsonl", i), 3)
	}
	db := testutil.MustTempDB(t)
	mustIndex(t, db, root)
	c := mustConnect(t, db)
	whole := must(t, c, "sessions", map[string]any{"budget": 1 << 20})
	first := must(t, c, "sessions", map[string]any{"budget": 4096})
	var cursor string
	json.Unmarshal(first["next_cursor"], &cursor)
	if cursor == "" {
		t.Fatal("120 sessions fit one page of 4 KB")
	}
	for i := range 30 {
		f := writeSession(t, root, fmt.Sprintf("new/s%03d.jsonl", i), 3)
		later := time.Now().Add(time.Hour)
		os.Chtimes(f, later, later)
	}
	mustIndex(t, db, root)
	pages := []map[string]json.RawMessage{first}
	for cursor != "" {
		p := must(t, c, "sessions", map[string]any{"budget": 4096, "cursor": cursor})
		pages = append(pages, p)
		cursor = ""
		json.Unmarshal(p["next_cursor"], &cursor)
	}
	var got []json.RawMessage
	for _, p := range pages {
		var ss []json.RawMessage
		json.Unmarshal(p["sessions"], &ss)
		got = append(got, ss...)
	}
	var want []json.RawMessage
	json.Unmarshal(whole["sessions"], &want)
	if len(got) != len(want) {
		t.Fatalf("the pages hold %d sessions, the listing at the first page %d", len(got), len(want))
	}
	for i := range got {
		if !jsonEqual(t, got[i], want[i]) {
			t.Fatalf("session %d of the pages is %.200s, the listing at the first page has %.200s", i, got[i], want[i])
		}
	}
}
