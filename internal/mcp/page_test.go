package mcp

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/testutil"
)

// Any document, any budget: the pages hold every element once, in order,
// whole; each page is within the budget; an element too large alone is
// over_budget with a cursor past it, and nothing else is skipped.
func TestPage_Property(t *testing.T) {
	testutil.RapidChecks(t, 200, 2000)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(rt, "n")
		a, b := [][]byte{}, [][]byte{}
		for i := range n {
			s, _ := json.Marshal(strings.Repeat("<é>", rapid.IntRange(0, 400).Draw(rt, "len")))
			a = append(a, s)
			b = append(b, []byte(strconv.Quote("id"+strconv.Itoa(i))))
		}
		ms := []jsondoc.Member{{Key: "session", Value: []byte(`"s"`)}, {Key: "messages", Elems: a}, {Key: "entryIds", Elems: b}, {Key: "tail", Value: []byte(`{"x":[1,2]}`)}}
		p := paging{members: []string{"messages", "entryIds"}, noun: "message"}
		budget := rapid.IntRange(MinBudget, 3000).Draw(rt, "budget")
		pages, skipped := walkPages(rt, p, ms, n, budget, "messages", func(at int) bool { return len(a[at])+len(b[at]) >= budget-300 })
		var got []string
		for _, page := range pages {
			var doc struct {
				Session  string
				Messages []string
				EntryIDs []string `json:"entryIds"`
				Tail     json.RawMessage
			}
			if err := json.Unmarshal(page, &doc); err != nil {
				rt.Fatalf("page %s: %v", page, err)
			}
			if doc.Session != "s" || string(doc.Tail) != `{"x":[1,2]}` || len(doc.Messages) != len(doc.EntryIDs) {
				rt.Fatalf("page %s", page)
			}
			for i, m := range doc.Messages {
				got = append(got, doc.EntryIDs[i]+"="+m)
			}
		}
		var want []string
		for i := range a {
			if skipped[i] {
				continue
			}
			var m string
			json.Unmarshal(a[i], &m)
			want = append(want, "id"+strconv.Itoa(i)+"="+m)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			rt.Fatalf("pages hold %d elements, want %d", len(got), len(want))
		}
	})
}

// A list that goes with the paged one (leaves' runs): each page holds the
// elements of it whose key (the session's path) is the key of one of the
// page's own elements, in their order, and no others; the pages hold every
// paged element once, in order, each page within the budget; a document
// that fits is whole, that list whole with it.
func TestPage_WithList(t *testing.T) {
	testutil.RapidChecks(t, 200, 2000)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 50).Draw(rt, "n")
		leaves, runs := [][]byte{}, [][]byte{}
		for i := range n {
			s := rapid.IntRange(0, 5).Draw(rt, "session")
			leaves = append(leaves, []byte(`{"id":"l`+strconv.Itoa(i)+`","path":"/s`+strconv.Itoa(s)+`","pad":"`+strings.Repeat("x", rapid.IntRange(0, 200).Draw(rt, "pad"))+`"}`))
		}
		for j := range rapid.IntRange(0, 20).Draw(rt, "runs") {
			s := rapid.IntRange(0, 6).Draw(rt, "run session")
			runs = append(runs, []byte(`{"root":"r`+strconv.Itoa(j)+`","path":"/s`+strconv.Itoa(s)+`","leaves":["`+strings.Repeat("y", rapid.IntRange(0, 150).Draw(rt, "run pad"))+`"]}`))
		}
		ms := []jsondoc.Member{{Key: "leaves", Elems: leaves}, {Key: "runs", Elems: runs}}
		p := paging{members: []string{"leaves"}, noun: "leaf", with: "runs", key: pathOf}
		budget := rapid.IntRange(MinBudget, 4000).Draw(rt, "budget")
		pages, skipped := walkPages(rt, p, ms, n, budget, "leaves", func(int) bool { return true })
		var got []string
		for _, page := range pages {
			var doc struct {
				Leaves []struct{ ID, Path string }
				Runs   []struct{ Root, Path string }
				Page   *struct{ From, Count int }
			}
			if err := json.Unmarshal(page, &doc); err != nil {
				rt.Fatalf("page %s: %v", page, err)
			}
			paths := map[string]bool{}
			for _, l := range doc.Leaves {
				got = append(got, l.ID)
				paths[l.Path] = true
			}
			var wantRuns, gotRuns []string
			for _, r := range runs {
				var o struct{ Root, Path string }
				json.Unmarshal(r, &o)
				if doc.Page == nil || paths[o.Path] {
					wantRuns = append(wantRuns, o.Root)
				}
			}
			for _, r := range doc.Runs {
				gotRuns = append(gotRuns, r.Root)
			}
			if strings.Join(gotRuns, ",") != strings.Join(wantRuns, ",") {
				rt.Fatalf("a page holds runs %v, want %v (those of its leaves' sessions; all when whole)", gotRuns, wantRuns)
			}
		}
		var want []string
		for i := range n {
			if !skipped[i] {
				want = append(want, "l"+strconv.Itoa(i))
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			rt.Fatalf("the pages hold %v, want %v", got, want)
		}
	})
}

// walkPages cuts the document ms (n elements in its paged lists) into
// pages with p at budget, from the first to the last, and returns them
// with the elements refused as over_budget. It checks what every page
// must be: within the budget, an over_budget element one that tooBig
// allows and its cursor going on right after it, a next_cursor going on
// after the page's last element, an end within 2n+2 pages.
func walkPages(rt *rapid.T, p paging, ms []jsondoc.Member, n, budget int, tool string, tooBig func(at int) bool) ([][]byte, map[int]bool) {
	next := func(at int) string { return cursor{Tool: tool, Args: json.RawMessage(`{}`), At: at}.String() }
	var pages [][]byte
	skipped := map[int]bool{}
	for at, k := 0, 0; ; k++ {
		if k > 2*n+2 {
			rt.Fatalf("no end after %d pages", k)
		}
		page, err := p.page(partsOf(ms), at, budget, next)
		var te *toolError
		if errors.As(err, &te) && te.obj.Code == "over_budget" {
			if !tooBig(at) {
				rt.Fatalf("element %d refused at budget %d: %s", at, budget, te.obj.Message)
			}
			c, _ := parseCursor(te.cursor)
			if c.At != at+1 {
				rt.Fatalf("over_budget at %d: its cursor goes on at %d", at, c.At)
			}
			skipped[at] = true
			at = c.At
			continue
		}
		if err != nil {
			rt.Fatal(err)
		}
		if len(page) > budget {
			rt.Fatalf("page of %d bytes over the budget %d", len(page), budget)
		}
		pages = append(pages, page)
		var doc struct {
			Page *struct{ From, Count int }
			Next string `json:"next_cursor"`
		}
		if err := json.Unmarshal(page, &doc); err != nil {
			rt.Fatalf("page %s: %v", page, err)
		}
		if doc.Next == "" {
			return pages, skipped
		}
		c, err := parseCursor(doc.Next)
		if err != nil || doc.Page == nil || c.At != doc.Page.From+doc.Page.Count || c.At <= at {
			rt.Fatalf("page %+v, next %+v (%v)", doc.Page, c, err)
		}
		at = c.At
	}
}
