package serve_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/grove-sessions/grove/internal/serve"
)

// Browser tests of pages that change under the reader: live updates, an id two files share, paging a long path, a stale page, an empty index, and text that would reorder or link.

// A committed entry appended to a session's file appears without a
// reload in the pages open on it: the watch indexes it, the Hub's notice
// reaches each page over /events, and the page fetches itself again.
// Three tabs: the session's tree (the new entry is its active leaf), the
// transcript of the old leaf (its path now goes on) and / (the session's
// entry count).
func TestBrowser_LiveUpdate(t *testing.T) {
	s := mustSiteOf(t, siteOptions{Files: siteFiles, NoKeep: true}) // a removed file's session leaves
	sess, err := s.R.Resolve(context.Background(), v3Session)
	if err != nil {
		t.Fatal(err)
	}
	tree, path, home := mustTab(t), mustTab(t), mustTab(t)
	tree.open(s, "/s/"+v3Session)
	path.open(s, "/s/"+v3Session+"/"+v3Active)
	home.open(s, "/")
	const id = newID
	for _, b := range []*tab{tree, path, home} {
		// A page is subscribed once /events said ready; a mark on window
		// tells a reload (which would lose it) from an update in place.
		b.do("wait for /events", chromedp.Poll[chromedp.Void](`document.body.dataset.live === "ready"`, chromedp.WithPollingInterval(20*time.Millisecond)))
		b.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.groveMark = 1`))
		if eval[bool](b, `document.body.textContent.includes("`+id+`")`) {
			t.Fatalf("%s is on %s before it is appended", id, b.location())
		}
	}
	mustAppend(t, s.Files["v3-tree.jsonl"], newEntry)
	wait := func(b *tab, what, expr string) string {
		t.Helper()
		// The watch waits 50 ms for quiet; a page takes well under a
		// second to fetch itself again.
		ctx, cancel := context.WithTimeout(b.ctx, loadTimeout)
		defer cancel()
		got, err := chromedp.Run(ctx, chromedp.Poll[string](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(0)))
		if err != nil {
			t.Fatalf("%s did not come in %v: %v", what, loadTimeout, err)
		}
		return got
	}
	if got, want := wait(tree, "the tree's new active leaf "+id,
		`(() => { const a = document.querySelector(".rows-tree .tr.active a.id"); return a && a.textContent === "`+id+`" ? a.getAttribute("href") : ""; })()`),
		"/s/"+v3Session+"/"+id+"#entry-"+id; got != want {
		t.Errorf("the new leaf links to %s, want %s", got, want)
	}
	if got, want := wait(path, "the transcript's way on to "+id,
		`(() => { const a = document.querySelector("section.continues a[href*='`+id+`']"); return a ? a.getAttribute("href") : ""; })()`),
		"/s/"+v3Session+"/"+id+"#entry-"+id; got != want {
		t.Errorf("the transcript's way on links to %s, want %s", got, want)
	}
	wait(home, "the session's new entry count on /",
		`(() => { const a = document.querySelector('table.sessions a.sess[href="/s/`+v3Session+`"]'); const n = a && a.closest("tr").querySelectorAll("td.n")[0]; return n && n.textContent === "`+fmt.Sprint(sess.Entries+1)+`" ? "yes" : ""; })()`)
	for _, b := range []*tab{tree, path, home} {
		if !eval[bool](b, `window.groveMark === 1`) {
			t.Errorf("%s was reloaded, not updated in place", b.location())
		}
		if eval[bool](b, `document.getElementById("live").hidden`) {
			t.Errorf("#live on %s does not say the page was updated", b.location())
		}
	}
	// The session's file is removed: its open tree says it is gone
	// instead of keeping what it showed.
	tree.allow("the server responded with a status of 404")
	path.allow("the server responded with a status of 404") // it fetches itself again too
	if err := os.Remove(s.Files["v3-tree.jsonl"]); err != nil {
		t.Fatal(err)
	}
	wait(tree, "the tree of a removed session to say so",
		`(() => { const h = document.querySelector("main h1"); return h && h.textContent.includes("404") ? "yes" : ""; })()`)
}

// Two files that share a session id (a copy): the lists' links name the
// file, so a click on a session or a leaf lands on its tree or
// transcript, not on the page that asks which file was meant.
func TestBrowser_AmbiguousID(t *testing.T) {
	s := mustSiteOf(t, siteOptions{Files: map[string]string{"v3-tree.jsonl": "pi/v3-tree.jsonl", "copy/v3-tree.jsonl": "pi/v3-tree.jsonl"}})
	b := mustTab(t)
	links := newLinkCheck(t, s)
	b.open(s, "/")
	links.page(b)
	b.click(`table.sessions a.sess[href^="/s/` + v3Session + `"]`)
	if got := eval[string](b, `document.body.dataset.page`); got != "tree" {
		t.Fatalf("a session link of / led to a %q page (%s), want its tree", got, b.location())
	}
	links.page(b)
	// The id alone asks which file, and each answer is a link to its tree.
	b.open(s, "/s/"+v3Session)
	links.page(b)
	if n := eval[int](b, `document.querySelectorAll("main ul a[href*='?file=']").length`); n != 2 {
		t.Fatalf("/s/%s offers %d files, want 2", v3Session, n)
	}
	b.click(`main ul a[href*="?file="]`)
	if got := eval[string](b, `document.body.dataset.page`); got != "tree" {
		t.Fatalf("a file offered for the shared id led to a %q page (%s), want its tree", got, b.location())
	}
	b.open(s, "/w?path=%2Fworkspace%2Fdemo-app")
	links.page(b)
	b.click(`table.leaves a[href*="/` + v3Active + `"]`)
	if got := eval[string](b, `document.body.dataset.page`); got != "transcript" {
		t.Fatalf("a leaf link of /w led to a %q page (%s), want its transcript", got, b.location())
	}
	want := pathIDs(t, s.R, s.Files["v3-tree.jsonl"], v3Active)
	if got := b.entryIDs(); !slices.Equal(got, want) {
		t.Fatalf("transcript entries = %v, want %v", got, want)
	}
	links.page(b)
	links.run()
}

// A path of more than serve.PageEntries entries is paged around its
// leaf: the leaf's page is the last PageEntries entries, and the pager's
// links, clicked, show the pages before it and back.
func TestBrowser_Paging(t *testing.T) {
	const n = 2*serve.PageEntries + 300
	var buf strings.Builder
	buf.WriteString(`{"type":"session","version":3,"id":"long-0001","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/workspace/long"}` + "\n")
	parent := "null"
	for i := range n {
		id := fmt.Sprintf("e%05d", i)
		role := []string{"user", "assistant"}[i%2]
		fmt.Fprintf(&buf, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-03-03T08:%02d:%02d.000Z","message":{"role":%q,"content":[{"type":"text","text":"message %d"}]}}`+"\n",
			id, parent, i/60%60, i%60, role, i)
		parent = `"` + id + `"`
	}
	s := mustSiteOf(t, siteOptions{Made: map[string][]byte{"long.jsonl": []byte(buf.String())}})
	b := mustTab(t)
	path := pathIDs(t, s.R, "long-0001", fmt.Sprintf("e%05d", n-1))
	if len(path) != n {
		t.Fatalf("the path holds %d entries, want %d", len(path), n)
	}
	shows := func(what string, from, to int) {
		t.Helper()
		if got := b.entryIDs(); !slices.Equal(got, path[from:to]) {
			t.Fatalf("%s: %d entries from %s, want entries %d to %d", what, len(got), strings.Join(got[:min(len(got), 1)], ""), from+1, to)
		}
	}
	b.open(s, "/s/long-0001")
	// Its tree has more than serve.TreeRows rows: the active leaf's row
	// is on the tree's last page.
	b.click(`nav.pager[aria-label="rows"] a[rel="next"]`)
	b.click(`.rows-tree .tr.active a.id`)
	shows("the leaf's page", n-serve.PageEntries, n)
	b.click(`nav.pager a[rel="prev"]`)
	shows("earlier", n-2*serve.PageEntries, n-serve.PageEntries)
	b.click(`nav.pager a[rel="prev"]`)
	shows("earlier again", 0, n-2*serve.PageEntries)
	if eval[int](b, `document.querySelectorAll('nav.pager a[rel="prev"]').length`) != 0 {
		t.Error("the first page has an earlier link")
	}
	b.click(`nav.pager a[rel="next"]`)
	shows("later", n-2*serve.PageEntries, n-serve.PageEntries)
	b.click(`nav.pager a[href$="/e` + fmt.Sprintf("%05d", n-1) + `"]`)
	shows("to the leaf", n-serve.PageEntries, n)
}

// A transcript asked for while its session's file is ahead of the index
// (an agent writing it) is a 409 page that says it reloads once the
// index catches up, and it does.
func TestBrowser_StalePage(t *testing.T) {
	s := mustSiteOf(t, siteOptions{Files: map[string]string{"v3-tree.jsonl": "pi/v3-tree.jsonl"}, Manual: true})
	b := mustTab(t)
	mustAppend(t, s.Files["v3-tree.jsonl"], newEntry)
	b.allow("the server responded with a status of 409")
	b.open(s, "/s/"+v3Session+"/"+v3Active)
	if got := eval[string](b, `document.body.dataset.page + " " + document.title`); !strings.HasPrefix(got, "error Conflict") {
		t.Fatalf("a transcript of a file ahead of the index is %q, want the 409 error page", got)
	}
	b.do("wait for /events", chromedp.Poll[chromedp.Void](`document.body.dataset.live === "ready"`, chromedp.WithPollingInterval(20*time.Millisecond)))
	b.follow("the index catching up", chromedp.Func(func(context.Context, *chromedp.Target) error {
		s.index(t)
		return nil
	}))
	if got := eval[string](b, `document.body.dataset.page`); got != "transcript" {
		t.Fatalf("once the index caught up, the 409 page is a %q page, want the transcript", got)
	}
	if got, want := b.entryIDs(), pathIDs(t, s.R, v3Session, v3Active); !slices.Equal(got, want) {
		t.Fatalf("transcript entries = %v, want %v", got, want)
	}
}

// An empty index: / says so, a search finds nothing, an unknown session
// is a 404 page; none of them errs in the browser.
func TestBrowser_Empty(t *testing.T) {
	s := mustSiteOf(t, siteOptions{})
	b := mustTab(t)
	b.open(s, "/")
	if got := eval[string](b, `(document.querySelector("main .empty") || {}).textContent || ""`); !strings.Contains(got, "no sessions yet") {
		t.Errorf("/ of an empty index says %q, want that it holds no sessions yet", got)
	}
	b.open(s, "/search?q=anything")
	if got := eval[string](b, `document.querySelector("section.hits h2").textContent`); got != "No hits" {
		t.Errorf("a search of an empty index says %q, want No hits", got)
	}
	b.allow("the server responded with a status of 404")
	b.open(s, "/s/nothing")
	if got := eval[string](b, `document.title`); !strings.HasPrefix(got, "Not Found") {
		t.Errorf("an unknown session's page is titled %q, want Not Found", got)
	}
}

// In the browser, a bidirectional override in session text shows as its
// escape, in the transcript's text and in the tab's title, and a refused
// Markdown link is its text: nothing on the page is a link to nowhere.
func TestBrowser_BidiAndRefusedLinks(t *testing.T) {
	s := mustSiteOf(t, siteOptions{Files: map[string]string{"bidi.jsonl": "serve/hostile/bidi.jsonl"}})
	b := mustTab(t)
	b.open(s, "/s/bidi-0001/b4")
	if got, want := eval[string](b, `document.querySelector("#entry-b2 .md").textContent.trim()`), `Open the kestrel \u202eexe.txt file and read the notes first`; got != want {
		t.Errorf("the user message reads %q, want %q", got, want)
	}
	if got := eval[string](b, `document.title`); !strings.HasPrefix(got, `invoice \u202efdp.exe · b4`) {
		t.Errorf("the title is %q, want the name with its override escaped", got)
	}
	if n := eval[int](b, `document.querySelectorAll('a:not([href]), a[href=""]').length`); n != 0 {
		t.Errorf("%d links without a destination on the transcript", n)
	}
	if got := eval[bool](b, `/[\u202a-\u202e\u2066-\u2069]/.test(document.body.textContent + document.title)`); got {
		t.Errorf("the page's text holds a bidirectional override as itself")
	}
}
