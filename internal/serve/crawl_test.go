package serve_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/grove-sessions/grove/archive"
)

// allTestdata are the testdata folders whose sessions the crawl serves:
// every dialect, the damaged cases and the quirks, and the hostile ones.
var allTestdata = []string{"pi", "pi-edge", "pi-1.6", "plain", "claude", "codex", "messages", "quirks", "cases", "serve"}

// maxCrawl bounds a crawl: the testdata's pages are a few hundred.
const maxCrawl = 5000

// crawl GETs every page of h reachable from starts by the links, stylesheets,
// scripts, images and GET forms of its pages (a form's action is asked
// with each of queries as q), checks each HTML page with checkPage and
// returns every answer by target. Any answer but 200 is an error (every
// link a page gives must work), but a 422 saying the file's damage breaks
// the path to the entry linked (a tree links each of its entries).
func crawl(t *testing.T, h *fixture, queries []string, starts ...string) map[string]answer {
	t.Helper()
	seen := map[string]answer{}
	queue := append([]string{}, starts...)
	queued := map[string]bool{}
	for _, s := range starts {
		queued[s] = true
	}
	for len(queue) > 0 {
		target := queue[0]
		queue = queue[1:]
		if len(seen) >= maxCrawl {
			t.Fatalf("crawl: more than %d pages; last %s", maxCrawl, target)
		}
		got := get(t, h.h, target)
		seen[target] = got
		if got.Status != 200 && !(got.Status == 422 && brokenPath.MatchString(got.Body)) {
			t.Errorf("GET %s = %d, want 200 (a link of the crawl)", target, got.Status)
		}
		if !strings.HasPrefix(got.Header.Get("Content-Type"), "text/html") {
			continue
		}
		base, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range checkPage(t, target, got.Body) {
			u, err := base.Parse(l.url)
			if err != nil || u.Host != "" || u.Scheme != "" {
				continue // checkPage judged it
			}
			u.Fragment = ""
			var next []string
			if l.form {
				for _, q := range queries {
					v := url.Values{"q": {q}}
					next = append(next, u.Path+"?"+v.Encode())
				}
			} else {
				next = []string{u.RequestURI()}
			}
			for _, n := range next {
				if !queued[n] {
					queued[n] = true
					queue = append(queue, n)
				}
			}
		}
	}
	return seen
}

// brokenPath is the code of a 422 error page.
var brokenPath = regexp.MustCompile(`<code>\[(missing_parent|cycle|duplicate_id)\]</code>`)

// link is a URL a page refers to; form: a GET form's action.
type link struct {
	url  string
	form bool
}

// urlAttrs are the attributes that hold a URL.
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "formaction": true, "poster": true, "data": true,
	"xlink:href": true, "background": true, "cite": true, "ping": true, "manifest": true, "icon": true, "lowsrc": true, "longdesc": true}

// forbidden are elements no grove page has any use for, each a way to run
// or load something.
var forbidden = map[string]bool{"style": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true,
	"applet": true, "base": true, "portal": true, "svg": true, "math": true, "template": true, "noscript": true}

// dataImage is an img src the transcript may embed (SPEC §9: img-src data:).
var dataImage = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s%]*$`)

// checkPage parses body as HTML and reports, as errors naming target,
// what SPEC §9 rules out: a <script> that is inline or from anywhere but
// /static/, a <style> element or style= attribute, an on* attribute, a
// javascript:, vbscript: or data: URL (but an img's data: image), and a
// URL of another server in a src, action or stylesheet (an <a href> may
// go to http, https or mailto: Markdown's links). It returns the URLs the
// page refers to.
func checkPage(t *testing.T, target, body string) []link {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Errorf("GET %s: not HTML: %v", target, err)
		return nil
	}
	var links []link
	bad := func(n *html.Node, format string, args ...any) {
		t.Helper()
		var b strings.Builder
		html.Render(&b, n)
		s := b.String()
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		t.Errorf("GET %s: %s: %s", target, strings.TrimSpace(fmt.Sprintf(format, args...)), s)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			name := n.Data
			if n.Namespace != "" {
				name = n.Namespace
			}
			if forbidden[name] {
				bad(n, "a <%s> element", name)
			}
			if name == "meta" && attr(n, "http-equiv") != "" {
				bad(n, "a <meta http-equiv>")
			}
			if name == "script" {
				src := attr(n, "src")
				if !strings.HasPrefix(src, "/static/") || strings.HasPrefix(src, "/static//") {
					bad(n, "a script not from /static/")
				}
				if c := n.FirstChild; c != nil && strings.TrimSpace(c.Data) != "" {
					bad(n, "an inline script")
				}
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				if a.Namespace != "" {
					key = a.Namespace + ":" + key
				}
				switch {
				case key == "style":
					bad(n, "a style= attribute")
				case strings.HasPrefix(key, "on"):
					bad(n, "an event handler attribute %s", key)
				case key == "srcset" || key == "srcdoc":
					bad(n, "a %s attribute", key)
				case urlAttrs[key]:
					if l, ok := checkURL(name, key, a.Val); !ok {
						bad(n, "%s=%q", key, a.Val)
					} else if l != "" {
						links = append(links, link{url: l, form: name == "form"})
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return links
}

// checkURL judges the URL v of attribute key of element el: ok, and the
// URL to follow when it is one of this server's ("" for a page anchor, a
// data: image or an outside link).
func checkURL(el, key, v string) (follow string, ok bool) {
	s := strings.ToLower(strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1 // as browsers drop them
		}
		return r
	}, v))
	if strings.HasPrefix(s, "//") || strings.HasPrefix(s, `/\`) || strings.HasPrefix(s, `\`) {
		return "", false // another server, scheme-relative
	}
	i := strings.IndexAny(s, ":/?#")
	if i >= 0 && s[i] == ':' {
		switch scheme := s[:i]; {
		case el == "img" && key == "src" && dataImage.MatchString(v):
			return "", true
		case el == "a" && key == "href" && (scheme == "http" || scheme == "https" || scheme == "mailto"):
			return "", true // a link out, as Markdown's may be (SPEC §9)
		default:
			return "", false
		}
	}
	if strings.HasPrefix(s, "#") {
		return "", true
	}
	return v, true
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

// Every page reachable from / — the workspaces, every testdata session's
// tree (folded and full) and the transcript of the path to each of its
// entries, their pages and sibling branches, searches — is HTML with no
// inline script or style, no event handler, no script: or data: URL and
// nothing loaded from elsewhere (SPEC §9), and each of its links works.
func TestPages_Crawl(t *testing.T) {
	f := mustServer(t, nil, allTestdata...)
	seen := crawl(t, f, []string{"login", "alert", "README", "script", `"quotes"`, "jwt OR token"}, "/")
	ctx := context.Background()
	sessions, err := f.a.Sessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := f.a.Leaves(ctx, archive.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// The crawl reached every session's tree and every leaf's transcript.
	byPath := map[string]bool{}
	for target := range seen {
		if u, err := url.Parse(target); err == nil {
			byPath[u.Path] = true
		}
	}
	for _, s := range sessions {
		if p := "/s/" + s.SessionID; !byPath[p] {
			t.Errorf("the crawl never reached %s (%s)", p, s.Path)
		}
	}
	for _, l := range leaves {
		if p := "/s/" + l.Session.SessionID + "/" + l.EntryID; !byPath[p] {
			t.Errorf("the crawl never reached %s", p)
		}
	}
	var kinds []string
	count := map[string]int{}
	for target := range seen {
		k := strings.SplitN(strings.TrimPrefix(target, "/"), "/", 2)[0]
		k, _, _ = strings.Cut(k, "?")
		if count[k] == 0 {
			kinds = append(kinds, k)
		}
		count[k]++
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, count[k]))
	}
	t.Logf("crawled %d answers (%s) over %d sessions, %d leaves", len(seen), strings.Join(parts, ", "), len(sessions), len(leaves))
	if len(sessions) < 30 || len(seen) < 100 {
		t.Fatalf("crawled %d answers over %d sessions: too few to mean anything", len(seen), len(sessions))
	}
}
