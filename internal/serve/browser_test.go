package serve_test

// grove serve in a real browser (SPEC §9): headless
// Chromium driven by chromedp against serve.New and serve.Watch over the
// testdata sessions. Every test fails on a console error, an uncaught
// exception or a CSP violation (see tab), and skips when no Chromium is
// installed (see findChromium).

import (
	"context"
	"fmt"
	"html"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/serve"
)

// The v3-tree fixture (testdata/pi/v3-tree.expected.txt): its active leaf
// b7395fc2 and the newest leaf of the sibling branch that starts at
// c7d24b98, at the branch point 6a1f9e07.
const (
	v3Session = "5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13"
	v3Active  = "b7395fc2"
	v3Sibling = "c7d24b98"
	v3Other   = "35c7e0da"
)

// newEntry is a committed pi line for v3-tree: a user message whose
// parent is the active leaf, as pi appends the next prompt.
const (
	newID    = "c0ffee01"
	newEntry = `{"type":"message","id":"` + newID + `","parentId":"` + v3Active + `","timestamp":"2026-03-03T08:05:00.000Z","message":{"role":"user","content":[{"type":"text","text":"Now the logout endpoint."}],"timestamp":1772525100000}}`
)

// From / to a workspace, its session's tree and the active leaf's
// transcript, each by clicking its link; the transcript holds the path's
// entries in order.
func TestBrowser_FollowLinks(t *testing.T) {
	s := mustSite(t)
	b := mustTab(t)
	b.open(s, "/")
	b.click(`table.rows a[href="/w?path=%2Fworkspace%2Fdemo-app"]`)
	if got := b.location(); got != "/w?path=%2Fworkspace%2Fdemo-app" {
		t.Fatalf("after the workspace link: at %s", got)
	}
	if got := eval[string](b, `document.body.dataset.page`); got != "workspace" {
		t.Fatalf("the workspace link led to a %q page", got)
	}
	b.click(`table.sessions a.sess[href="/s/` + v3Session + `"]`)
	if got := b.location(); got != "/s/"+v3Session {
		t.Fatalf("after the session link: at %s", got)
	}
	b.click(`.rows-tree .tr.active a.id`)
	if got, want := b.location(), "/s/"+v3Session+"/"+v3Active+"#entry-"+v3Active; got != want {
		t.Fatalf("after the active leaf's link: at %s, want %s", got, want)
	}
	want := pathIDs(t, s.R, v3Session, v3Active)
	if got := b.entryIDs(); !slices.Equal(got, want) {
		t.Fatalf("transcript entries = %v, want the path's %v", got, want)
	}
	if got := eval[string](b, `document.querySelector(":target") ? document.querySelector(":target").id : ""`); got != "entry-"+v3Active {
		t.Errorf(":target = %q, want entry-%s", got, v3Active)
	}
}

// A sibling branch one click away in nav.branches, and "]" going back:
// each time the URL names the other branch's newest leaf and the entries
// are that leaf's path.
func TestBrowser_BranchSwitch(t *testing.T) {
	s := mustSite(t)
	b := mustTab(t)
	b.open(s, "/s/"+v3Session+"/"+v3Active)
	b.click(`nav.branches a.sib[href*="#entry-` + v3Sibling + `"]`)
	if got, want := b.location(), "/s/"+v3Session+"/"+v3Other+"?at="+v3Sibling+"#entry-"+v3Sibling; got != want {
		t.Fatalf("after the sibling link: at %s, want %s", got, want)
	}
	if got, want := b.entryIDs(), pathIDs(t, s.R, v3Session, v3Other); !slices.Equal(got, want) {
		t.Fatalf("sibling branch's entries = %v, want %v", got, want)
	}
	// The current entry is the branch's first (the hash): "]" goes to the
	// next branch of the branch point above it, the one it came from.
	b.follow(`key "]"`, press(']'))
	if got, want := b.location(), "/s/"+v3Session+"/"+v3Active; !strings.HasPrefix(got, want+"?") && !strings.HasPrefix(got, want+"#") {
		t.Fatalf(`after "]": at %s, want the transcript of %s`, got, want)
	}
	if got, want := b.entryIDs(), pathIDs(t, s.R, v3Session, v3Active); !slices.Equal(got, want) {
		t.Fatalf(`entries after "]" = %v, want %v`, got, want)
	}
	// And "[" back again.
	b.follow(`key "["`, press('['))
	if got := b.location(); !strings.HasPrefix(got, "/s/"+v3Session+"/"+v3Other) {
		t.Fatalf(`after "[": at %s, want the transcript of %s`, got, v3Other)
	}
}

// j and k move the .current class from entry to entry and put its id in
// the URL's fragment; "/" focuses the search box without typing into it.
func TestBrowser_Keys(t *testing.T) {
	s := mustSite(t)
	b := mustTab(t)
	ids := pathIDs(t, s.R, v3Session, v3Active)
	b.open(s, "/s/"+v3Session+"/"+v3Active+"#entry-"+ids[2])
	current := func() string {
		t.Helper()
		return eval[string](b, `Array.from(document.querySelectorAll("#entries .current"), (e) => e.id).join(" ")`)
	}
	for i, step := range []struct {
		key  rune
		want int // index on the path
	}{{'j', 3}, {'j', 4}, {'k', 3}, {'k', 2}, {'k', 1}, {'k', 0}, {'k', 0}} {
		b.do("key "+string(step.key), press(step.key))
		want := "entry-" + ids[step.want]
		if got := current(); got != want {
			t.Fatalf("after key %d (%s): .current on %q, want %q (one entry)", i+1, string(step.key), got, want)
		}
		if got := eval[string](b, `location.hash`); got != "#"+want {
			t.Fatalf("after key %d (%s): location.hash = %q, want #%s", i+1, string(step.key), got, want)
		}
	}
	if got := eval[string](b, `document.activeElement ? document.activeElement.id : ""`); got == "q" {
		t.Fatal("#q has the focus before any / key")
	}
	b.do(`key "/"`, press('/'))
	if got := eval[string](b, `document.activeElement ? document.activeElement.id : ""`); got != "q" {
		t.Fatalf(`after "/": the focus is on %q, want #q`, got)
	}
	if got := eval[string](b, `document.getElementById("q").value`); got != "" {
		t.Fatalf(`"/" was typed into #q: %q`, got)
	}
	// Keys typed into the box are text, not commands.
	b.do("type j into #q", press('j'))
	if got := current(); got != "entry-"+ids[0] {
		t.Fatalf("j typed into #q moved .current to %q", got)
	}
	// With nothing selected, the first j selects the first entry in view.
	b.open(s, "/s/"+v3Session+"/"+v3Active)
	b.do("key j", press('j'))
	if got := current(); got != "entry-"+ids[0] {
		t.Fatalf("the first j on a page opened at its top selects %q, want the first entry %q", got, "entry-"+ids[0])
	}
}

// A search typed into the header's box: the first hit links to the
// transcript of the path to its entry, with that entry as :target.
func TestBrowser_Search(t *testing.T) {
	s := mustSite(t)
	b := mustTab(t)
	b.open(s, "/")
	b.do("type into #q", chromedp.Click(chromedp.ID("q")), chromedp.SendKeys(chromedp.ID("q"), "jsonwebtoken"))
	b.follow("Enter in #q", press('\r'))
	if got := b.location(); got != "/search?q=jsonwebtoken" {
		t.Fatalf("after Enter: at %s, want /search?q=jsonwebtoken", got)
	}
	hits := eval[int](b, `document.querySelectorAll("ol.hitlist li.hit a.go").length`)
	if hits == 0 {
		t.Fatal("no hits for jsonwebtoken on the search page")
	}
	href := eval[string](b, `document.querySelector("ol.hitlist li.hit a.go").getAttribute("href")`)
	_, frag, ok := strings.Cut(href, "#entry-")
	if !ok || !strings.HasPrefix(href, "/s/") {
		t.Fatalf("first hit links to %q, want /s/{session}/{entry}#entry-{id}", href)
	}
	b.click(`ol.hitlist li.hit a.go`)
	if got := b.location(); got != href {
		t.Fatalf("after the first hit's link: at %s, want %s", got, href)
	}
	if got := eval[string](b, `document.querySelector(":target") ? document.querySelector(":target").id : ""`); got != "entry-"+frag {
		t.Fatalf(":target = %q, want entry-%s", got, frag)
	}
	// The hit's entry is on the transcript, and it is the path's last.
	ids := b.entryIDs()
	if len(ids) == 0 || ids[len(ids)-1] != frag {
		t.Fatalf("transcript entries %v do not end at the hit's entry %s", ids, frag)
	}
	snippet := eval[string](b, `document.title`)
	if !strings.Contains(snippet, frag) {
		t.Errorf("title %q does not name the entry %s", snippet, frag)
	}
}

// The search page's filters are grove search's flags: a dialect chosen
// and the form sent keeps to that dialect's sessions.
func TestBrowser_SearchFilters(t *testing.T) {
	s := mustSite(t)
	b := mustTab(t)
	b.open(s, "/search?q=the")
	all := eval[int](b, `document.querySelectorAll("ol.hitlist li.hit").length`)
	b.do("choose pi", chromedp.SetValue(chromedp.CSS(`form.filters select[name="dialect"]`), "pi"))
	b.click(`form.filters button[type="submit"]`)
	u, err := url.Parse(b.location())
	if err != nil {
		t.Fatal(err)
	}
	if q := u.Query(); u.Path != "/search" || q.Get("q") != "the" || q.Get("dialect") != "pi" {
		t.Fatalf("the filters form sent %s, want /search with q=the and dialect=pi", u)
	}
	if got := eval[string](b, `document.querySelector('form.filters select[name="dialect"]').value`); got != "pi" {
		t.Errorf("the dialect shown after the search is %q, want pi", got)
	}
	sessions := eval[[]string](b, `Array.from(document.querySelectorAll("ol.hitlist li.hit span.sid"), (e) => e.textContent)`)
	if len(sessions) == 0 || len(sessions) >= all {
		t.Fatalf("dialect=pi: %d hits, want some and fewer than the %d of every dialect", len(sessions), all)
	}
	for _, id := range sessions {
		se, err := s.R.Resolve(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if se.Dialect != archive.Pi {
			t.Errorf("dialect=pi found a hit in %s, a %s session", id, se.Dialect)
		}
	}
}

// The tree page folds linear runs; its "Show all" link (?full=1) draws
// every entry, and "Fold linear runs" folds them again.
func TestBrowser_TreeFolds(t *testing.T) {
	s := mustSite(t)
	b := mustTab(t)
	sess, err := s.R.Resolve(context.Background(), v3Session)
	if err != nil {
		t.Fatal(err)
	}
	rows := func() (entries, folds int) {
		t.Helper()
		return eval[int](b, `document.querySelectorAll(".rows-tree .tr.k-entry").length`),
			eval[int](b, `document.querySelectorAll(".rows-tree .tr.k-fold").length`)
	}
	b.open(s, "/s/"+v3Session)
	entries, folds := rows()
	if folds == 0 || entries >= sess.Entries {
		t.Fatalf("folded tree: %d entry rows and %d folds, want fewer than %d entries and a fold", entries, folds, sess.Entries)
	}
	b.click(`.legend a[href$="?full=1"]`)
	if got := b.location(); got != "/s/"+v3Session+"?full=1" {
		t.Fatalf("after Show all: at %s", got)
	}
	if entries, folds := rows(); folds != 0 || entries != sess.Entries {
		t.Fatalf("full tree: %d entry rows and %d folds, want %d and none", entries, folds, sess.Entries)
	}
	b.click(`.legend a[href="/s/` + v3Session + `"]`)
	if e, f := rows(); e != entries || f != folds {
		t.Fatalf("folded again: %d entry rows and %d folds, want %d and %d", e, f, entries, folds)
	}
}

// Every page of every test session, each leaf's transcript and each tree
// folded and whole, loads with no console error and no CSP violation; the
// transcripts hold their paths' entries.
func TestBrowser_EveryPage(t *testing.T) {
	s := mustSite(t)
	b := mustTab(t)
	ctx := context.Background()
	all, err := s.R.Sessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(siteFiles) {
		t.Fatalf("the index holds %d sessions, want %d (one a file)", len(all), len(siteFiles))
	}
	links := newLinkCheck(t, s)
	visit := func(path string) {
		t.Helper()
		b.open(s, path)
		links.page(b)
	}
	visit("/")
	visit("/search?q=test&branch=active&sort=relevance")
	for _, se := range all {
		if se.Workspace != "" {
			visit("/w?path=" + url.QueryEscape(se.Workspace))
		}
		visit("/s/" + se.SessionID)
		visit("/s/" + se.SessionID + "?full=1")
		leaves, err := s.R.Leaves(ctx, archive.Filter{Session: se.SessionID})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range leaves {
			if l.Depth == nil {
				continue // a broken path: no transcript
			}
			visit("/s/" + se.SessionID + "/" + l.EntryID)
			got, want := b.entryIDs(), pathIDs(t, s.R, se.SessionID, l.EntryID)
			if se.Dialect == archive.Codex {
				path := want
				want = shownCodex(t, s.R, se.SessionID, l.EntryID, got)
				for _, id := range path {
					if !slices.Contains(want, id) {
						links.hidden[se.SessionID+"/"+id] = true
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %s (%s): entries %v, want %v", se.Dialect, se.SessionID, l.EntryID, got, want)
			}
		}
		b.check() // name the session while it is fresh
	}
	links.run()
}

// linkCheck follows every link of the pages it is shown: an in-page one
// must name an element of its page, one to this server must answer 200
// and, with a fragment, hold the element it names. Links elsewhere (a
// session's Markdown) are left alone.
type linkCheck struct {
	tb    testing.TB
	s     *site
	from  map[string]string // link (absolute, fragment kept) -> a page it is on
	pages map[string]string // fetched URL (no fragment) -> body, "" for not 200
	// hidden are the entries ("session/id") a transcript gives no block
	// (see shownCodex): a link to one lands on its path's page without
	// its anchor, which is logged, not failed. (Known: the tree links
	// every entry, the transcript leaves Codex's copies out.)
	hidden map[string]bool
}

func newLinkCheck(tb testing.TB, s *site) *linkCheck {
	return &linkCheck{tb: tb, s: s, from: map[string]string{}, pages: map[string]string{}, hidden: map[string]bool{}}
}

// page notes the links of the tab's page and checks its in-page ones.
func (c *linkCheck) page(b *tab) {
	c.tb.Helper()
	here := eval[string](b, `location.href`)
	dead := eval[[]string](b, `Array.from(document.querySelectorAll("a[href^='#']"), (a) => a.getAttribute("href")).filter((h) => !document.getElementById(decodeURIComponent(h.slice(1))))`)
	for _, h := range dead {
		c.tb.Errorf("on %s: the in-page link %s names no element", here, h)
	}
	for _, h := range eval[[]string](b, `Array.from(document.querySelectorAll("a[href]"), (a) => a.href).filter((h) => h.startsWith(location.origin + "/") && !h.startsWith(location.href.split("#")[0] + "#"))`) {
		if _, ok := c.from[h]; !ok {
			c.from[h] = here
		}
	}
}

// run fetches every link noted.
func (c *linkCheck) run() {
	c.tb.Helper()
	known := 0
	for _, h := range slices.Sorted(maps.Keys(c.from)) {
		u, frag, _ := strings.Cut(h, "#")
		body, ok := c.pages[u]
		if !ok {
			res, err := http.Get(u)
			if err != nil {
				c.tb.Fatalf("GET %s: %v", u, err)
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				c.tb.Fatalf("GET %s: %v", u, err)
			}
			if res.StatusCode != http.StatusOK {
				c.tb.Errorf("on %s: the link %s answers %s", c.from[h], u, res.Status)
			} else {
				body = string(b)
			}
			c.pages[u] = body
		}
		if frag == "" || body == "" {
			continue
		}
		if !strings.Contains(body, ` id="`+html.EscapeString(frag)+`"`) {
			c.tb.Errorf("on %s: the link %s lands on a page with no id=%q", c.from[h], h, frag)
			continue
		}
		session, _, _ := strings.Cut(strings.TrimPrefix(u, c.s.URL+"/s/"), "/")
		if id, ok := strings.CutPrefix(frag, "entry-"); ok && c.hidden[session+"/"+id] {
			known++ // it lands on the entry's empty anchor
		}
	}
	c.tb.Logf("%d links to %d pages followed; %d to an entry the transcript does not draw (its empty anchor)", len(c.from), len(c.pages), known)
}

// shownCodex is the path to leaf of a Codex session without the entries
// export's renderer gives no block, which the page shows has left out:
// Codex writes what it shows twice, and the event_msg copies (and token
// counts, repeated turn_context lines) are not drawn (internal/transcript
// hiddenCodex). Any other entry missing from shown stays, and fails the
// comparison.
//
// Such an entry still has its anchor, an empty <a class="unshown"
// id="entry-{id}">, so a link to it (the tree's row, a leaf that is a
// token count) lands where it is: the link check below holds for it too.
func shownCodex(tb testing.TB, a *archive.Archive, session, leaf string, shown []string) []string {
	tb.Helper()
	p, err := a.Path(context.Background(), session, leaf)
	if err != nil {
		tb.Fatalf("Path(%s, %s): %v", session, leaf, err)
	}
	on := map[string]bool{}
	for _, id := range shown {
		on[id] = true
	}
	var ids []string
	for _, e := range p.Entries {
		if !on[e.EntryID] && (e.Type == "event_msg" || e.Type == "turn_context") {
			continue
		}
		ids = append(ids, e.EntryID)
	}
	return ids
}

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
