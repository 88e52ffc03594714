package serve_test

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The hostile sessions of testdata/serve/hostile (see its README.md).
const (
	hostileID  = `hostile"<&'>-0001`
	hostileCWD = `/tmp/<script>alert("cwd")</script>/"onmouseover="alert(1)`
	claudeID   = `claude-<i>&'x`
)

// hostileTexts are strings of the hostile sessions that some page must
// show as text, byte for byte: escaped, not dropped, not run.
var hostileTexts = []string{
	`<script>alert("name")</script> & "quotes"`, // the session name
	hostileCWD,                           // the workspace
	`<img src=x onerror=alert("label")>`, // a label
	`Hello <script>alert(1)</script>`,    // Markdown's raw HTML is text
	`<b onclick="alert(1)">bold</b>`,
	`<img src=x onerror=alert(1)>`,
	`</pre></code></div><script>alert(1)</script><style>*{color:red}</style>`, // tool output
	`echo '<script>alert(1)</script>'`,                                        // a tool call's arguments
	`<iframe src=javascript:alert(1)></iframe>`,                               // bash output
	`After the compaction: <img src=x onerror=alert(3)>`,
	hostileID, `<u1>`, `a&amp;1`, `b/1?x#y`, `u2 "&<`, `c<1`, // ids
	claudeID, `<script>alert("title")</script>`, `/tmp/claude/<img src=x onerror=alert(1)>`,
}

// Session text is never markup (SPEC §9): on every page of the hostile
// sessions — lists, workspace, trees, every path's transcript, searches
// for their text — the crawl's rules hold, no hostile tag reaches the
// HTML as a tag, each hostile string is there as text, entry anchors
// carry the hostile ids, links to hostile ids work, and only a PNG is
// embedded as a data: image.
func TestPages_Hostile(t *testing.T) {
	f := mustServer(t, nil, "serve")
	seen := crawl(t, f, []string{"alert", "script", "onerror", `"quotes"`, "javascript", "compaction"}, "/")
	texts := map[string]bool{}
	anchors := map[string]bool{}
	hits, pngs := 0, 0
	for target, got := range seen {
		if !strings.HasPrefix(got.Header.Get("Content-Type"), "text/html") {
			continue
		}
		low := strings.ToLower(got.Body)
		for _, raw := range []string{"<script>alert", "<img src=x", "<b onclick", "<style>", "<iframe", "<svg", "<x>", "<u1>", "<i>&",
			`href="javascript:`, `"onmouseover="`, "<form action=\"https://evil", "<div style"} {
			if strings.Contains(low, raw) {
				i := strings.Index(low, raw)
				t.Errorf("GET %s: %q is in the HTML unescaped: …%s…", target, raw, got.Body[max(i-80, 0):min(i+80, len(got.Body))])
			}
		}
		doc, err := html.Parse(strings.NewReader(got.Body))
		if err != nil {
			t.Fatal(err)
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			switch n.Type {
			case html.TextNode:
				for _, s := range hostileTexts {
					if strings.Contains(n.Data, s) {
						texts[s] = true
					}
				}
			case html.ElementNode:
				if id := attr(n, "id"); strings.HasPrefix(id, "entry-") {
					anchors[strings.TrimPrefix(id, "entry-")] = true
				}
				if n.Data == "li" && attr(n, "class") == "hit" {
					hits++
				}
				if n.Data == "img" && strings.HasPrefix(attr(n, "src"), "data:image/png;base64,") {
					pngs++
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	}
	for _, s := range hostileTexts {
		if !texts[s] {
			t.Errorf("no page shows %q as text", s)
		}
	}
	for _, id := range []string{`n"1`, `<u1>`, `a&amp;1`, `t'1`, `l"1`, `b/1?x#y`, `c<1`, `a2`, `u2 "&<`, `cu<1>`, `ca"2`} {
		if !anchors[id] {
			t.Errorf("no transcript has an entry anchored entry-%s", id)
		}
	}
	if hits == 0 {
		t.Errorf("the searches for the hostile text found nothing")
	}
	if pngs == 0 {
		t.Errorf("the tool result's PNG is not embedded in any transcript")
	}
	for _, p := range []string{"/s/" + url.PathEscape(hostileID), "/s/" + url.PathEscape(hostileID) + "/" + url.PathEscape("b/1?x#y"),
		"/s/" + url.PathEscape(claudeID) + "/" + url.PathEscape("cr&3"), "/w?path=" + url.QueryEscape(hostileCWD)} {
		if _, ok := seen[p]; !ok {
			if got := get(t, f.h, p); got.Status != 200 {
				t.Errorf("GET %s = %d, want 200", p, got.Status)
			}
		}
	}
	// The escaped forms are html/template's.
	got := get(t, f.h, "/s/"+url.PathEscape(hostileID)+"/a2")
	if !strings.Contains(got.Body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the transcript of a2 has no &lt;script&gt;alert(1)&lt;/script&gt;")
	}
}

// bidiRune reports whether r is a bidirectional override, embedding or
// isolate (U+202A–U+202E, U+2066–U+2069): in a page it would reorder the
// text around it, so it is shown escaped, as grove's command line shows
// it (internal/visible).
func bidiRune(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

// bidiShown are the texts of testdata/serve/hostile/bidi.jsonl as pages
// show them: each override escaped (in HTML, ' is &#39;).
var bidiShown = []string{`invoice \u202efdp.exe`, `/tmp/bidi/\u202etxt.exe`, `kestrel \u202eexe.txt`,
	`\u2066isolated\u2069 and \u202aembedded\u202c`, `kestrel \u202dltr`, `cat &#39;\u202eexe.txt&#39;`}

// Session text holding bidirectional overrides is shown with them
// escaped (\u202e) on every page that shows it: the list, the workspace,
// the tree, the transcript and its title (a search's snippets have them
// as spaces, as grove search's); none of them reaches a page as the
// character itself.
func TestPages_BidiEscaped(t *testing.T) {
	f := mustServer(t, nil, "serve")
	seen := crawl(t, f, []string{"kestrel"}, "/")
	shown := map[string]bool{}
	for target, got := range seen {
		if !strings.HasPrefix(got.Header.Get("Content-Type"), "text/html") {
			continue
		}
		if i := strings.IndexFunc(got.Body, bidiRune); i >= 0 {
			t.Errorf("GET %s: a bidirectional override as itself: …%s…", target, got.Body[max(i-80, 0):min(i+80, len(got.Body))])
		}
		for _, s := range bidiShown {
			if strings.Contains(got.Body, s) {
				shown[s] = true
			}
		}
		if strings.HasPrefix(target, "/s/bidi-0001/") && !strings.Contains(got.Body, `<title>invoice \u202efdp.exe · b`) {
			t.Errorf("GET %s: the title does not show the name escaped", target)
		}
	}
	for _, s := range bidiShown {
		if !shown[s] {
			t.Errorf("no page shows %q", s)
		}
	}
	for _, p := range []string{"/", "/w?path=" + url.QueryEscape("/tmp/bidi/\u202etxt.exe"), "/s/bidi-0001", "/s/bidi-0001/b4"} {
		if _, ok := seen[p]; !ok {
			t.Errorf("the crawl did not reach %s", p)
		}
	}
}

// A link or image whose scheme Markdown's guard refuses (javascript:,
// vbscript:, data:) is its text on the page, not a link without a
// destination: no page has an <a> whose href is missing or empty.
func TestPages_RefusedLinksAreText(t *testing.T) {
	f := mustServer(t, nil, "serve")
	for _, target := range []string{"/s/bidi-0001/b4", "/s/" + url.PathEscape(hostileID) + "/a2"} {
		got := get(t, f.h, target)
		doc, err := html.Parse(strings.NewReader(got.Body))
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode && n.Data == "a" {
				if href := attr(n, "href"); href == "" {
					var b strings.Builder
					html.Render(&b, n)
					t.Errorf("GET %s: a link without a destination: %s", target, b.String())
				}
			}
			if n.Type == html.TextNode {
				text.WriteString(n.Data)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
		for _, want := range map[string][]string{
			"/s/bidi-0001/b4":                         {"read the notes first", "see image: scan."},
			"/s/" + url.PathEscape(hostileID) + "/a2": {"x y [z]", ") d v ok", "image: i ", "Reply with a link and"},
		}[target] {
			if !strings.Contains(text.String(), want) {
				t.Errorf("GET %s: the page's text has no %q", target, want)
			}
		}
	}
}
