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
		next := func(at int) string { return cursor{Tool: "messages", Args: json.RawMessage(`{}`), At: at}.String() }
		var got []string
		skipped := map[int]bool{}
		for at, pages := 0, 0; ; pages++ {
			if pages > 2*n+2 {
				rt.Fatalf("no end after %d pages", pages)
			}
			page, err := p.page(partsOf(ms), at, budget, next)
			var te *toolError
			if errors.As(err, &te) && te.obj.Code == "over_budget" {
				if len(a[at])+len(b[at]) < budget-300 {
					rt.Fatalf("element %d of %d+%d bytes refused at budget %d: %s", at, len(a[at]), len(b[at]), budget, te.obj.Message)
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
			var doc struct {
				Session  string
				Messages []string
				EntryIDs []string `json:"entryIds"`
				Tail     json.RawMessage
				Page     *struct{ From, Count, Of int }
				Next     string `json:"next_cursor"`
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
			if doc.Next == "" {
				break
			}
			c, err := parseCursor(doc.Next)
			if err != nil || doc.Page == nil || c.At != doc.Page.From+doc.Page.Count || c.At <= at {
				rt.Fatalf("page %+v, next %+v (%v)", doc.Page, c, err)
			}
			at = c.At
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
		next := func(at int) string { return cursor{Tool: "leaves", Args: json.RawMessage(`{}`), At: at}.String() }
		var got []string
		for at, pages := 0, 0; ; pages++ {
			if pages > 2*n+2 {
				rt.Fatalf("no end after %d pages", pages)
			}
			page, err := p.page(partsOf(ms), at, budget, next)
			var te *toolError
			if errors.As(err, &te) && te.obj.Code == "over_budget" {
				c, _ := parseCursor(te.cursor)
				if c.At != at+1 {
					rt.Fatalf("over_budget at %d: its cursor goes on at %d", at, c.At)
				}
				got = append(got, "skipped")
				at = c.At
				continue
			}
			if err != nil {
				rt.Fatal(err)
			}
			if len(page) > budget {
				rt.Fatalf("page of %d bytes over the budget %d", len(page), budget)
			}
			var doc struct {
				Leaves []struct{ ID, Path string }
				Runs   []struct{ Root, Path string }
				Page   *struct{ From, Count int }
				Next   string `json:"next_cursor"`
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
				rt.Fatalf("page at %d holds runs %v, want %v (those of its leaves' sessions; all when whole)", at, gotRuns, wantRuns)
			}
			if doc.Next == "" {
				break
			}
			c, _ := parseCursor(doc.Next)
			at = c.At
		}
		for i, id := range got {
			if id != "skipped" && id != "l"+strconv.Itoa(i) {
				rt.Fatalf("the pages hold %v, want l0…l%d in order", got, n-1)
			}
		}
		if len(got) != n {
			rt.Fatalf("the pages hold %d leaves, want %d", len(got), n)
		}
	})
}
