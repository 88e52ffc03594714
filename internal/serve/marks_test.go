package serve_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// entryIDs are the ids of the entry elements of a transcript page, in
// page order.
func entryIDs(body string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<(?:section|div) class="(?:entry|note)[^"]*" id="entry-([^"]+)"`).FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// The transcript of the v3 demo's refresh-token leaf: every entry of the
// path in order, a branch box after each branch point naming the child the
// path takes and linking the sibling's newest leaf at the sibling, and the
// model context's boundary right before the compaction's first kept entry.
func TestTranscript_Marks(t *testing.T) {
	_, _, _, ts := staleServer(t)
	code, body := staleGet(t, ts.URL+"/s/5b7e/1b3f5d9a")
	if code != 200 {
		t.Fatalf("GET transcript = %d", code)
	}
	ids := entryIDs(body)
	if len(ids) != 24 || ids[0] != "a3f0c912" || ids[len(ids)-1] != "1b3f5d9a" {
		t.Fatalf("entries = %d (%v…), want the 24 of the path, a3f0c912 first and 1b3f5d9a last", len(ids), ids[:min(3, len(ids))])
	}
	// The branch box after 6a1f9e07 comes before c7d24b98's entry.
	box := strings.Index(body, `aria-label="branches at 6a1f9e07"`)
	next := strings.Index(body, `id="entry-c7d24b98"`)
	if box < 0 || next < box || box < strings.Index(body, `id="entry-6a1f9e07"`) {
		t.Fatalf("branch box at 6a1f9e07 at byte %d, entry c7d24b98 at %d: want the box right after the branch point", box, next)
	}
	if !strings.Contains(body, `<a class="this" aria-current="true" href="#entry-c7d24b98">`) {
		t.Fatalf("the branch box does not mark c7d24b98 as this path")
	}
	if !strings.Contains(body, `href="/s/5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13/b7395fc2?at=f20a9b6e#entry-f20a9b6e"`) {
		t.Fatalf("the branch box does not link the sibling f20a9b6e's newest leaf b7395fc2 at f20a9b6e")
	}
	b := strings.Index(body, `class="boundary"`)
	kept := strings.Index(body, `id="entry-d5c80e6b"`)
	before := strings.Index(body, `id="entry-13e5f8a2"`)
	if b < 0 || !(before < b && b < kept) {
		t.Fatalf("context boundary at byte %d, want between 13e5f8a2 (%d) and the first kept entry d5c80e6b (%d)", b, before, kept)
	}
	// The other leaf of that compaction keeps the same boundary; the
	// jose branch has no compaction: no boundary.
	if _, body := staleGet(t, ts.URL+"/s/5b7e/b7395fc2"); strings.Contains(body, `class="boundary"`) {
		t.Fatalf("the path to b7395fc2 has no compaction, but a boundary is marked")
	}
}

// A path to an entry that is no leaf ends with the ways it goes on.
func TestTranscript_GoesOn(t *testing.T) {
	_, _, _, ts := staleServer(t)
	_, body := staleGet(t, ts.URL+"/s/5b7e/6a1f9e07")
	i := strings.Index(body, `class="continues"`)
	if i < 0 || !strings.Contains(body[i:], `/35c7e0da?at=c7d24b98#entry-c7d24b98`) || !strings.Contains(body[i:], `/b7395fc2?at=f20a9b6e#entry-f20a9b6e`) {
		t.Fatalf("the path to 6a1f9e07 does not end with its two children c7d24b98 and f20a9b6e")
	}
	if _, body := staleGet(t, ts.URL+"/s/5b7e/1b3f5d9a"); strings.Contains(body, `class="continues"`) {
		t.Fatalf("a path to a leaf says it goes on")
	}
}

// A path of 2,500 entries is paged 1,000 at a time back from the leaf:
// the leaf's page first, ?at= any entry gives the page holding it, and
// the pages link each other.
func TestTranscript_Pages(t *testing.T) {
	w, file, _, ts := staleServer(t)
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"long-0001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w/long"}` + "\n")
	parent := "null"
	for i := 0; i < 2500; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"m%04d","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"entry %d"}}`+"\n", i, parent, i)
		parent = fmt.Sprintf(`"m%04d"`, i)
	}
	long := filepath.Join(filepath.Dir(file), "long.jsonl")
	if err := os.WriteFile(long, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), long, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query        string
		first, last  string
		earlier, lat bool
	}{
		{"", "m1500", "m2499", true, false},
		{"?at=m1499", "m0500", "m1499", true, true},
		{"?at=m0003", "m0000", "m0499", false, true},
		{"?at=m1500", "m1500", "m2499", true, false}, // a page's first entry
		{"?at=m0500", "m0500", "m1499", true, true},
		{"?at=nosuch", "m1500", "m2499", true, false},
	} {
		code, body := staleGet(t, ts.URL+"/s/long-0001/m2499"+c.query)
		ids := entryIDs(body)
		if code != 200 || len(ids) == 0 || ids[0] != c.first || ids[len(ids)-1] != c.last {
			t.Fatalf("page %q = %d, entries %d from %v to %v; want %s to %s", c.query, code, len(ids), first(ids), last(ids), c.first, c.last)
		}
		if strings.Contains(body, `rel="prev"`) != c.earlier || strings.Contains(body, `rel="next"`) != c.lat {
			t.Fatalf("page %q: earlier link %v, later link %v; want %v, %v", c.query, strings.Contains(body, `rel="prev"`), strings.Contains(body, `rel="next"`), c.earlier, c.lat)
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// A tree of more rows than TreeRows is paged: each page draws its rows
// with their previews, and links the others; ?rows= past the end gives
// the last page.
func TestTree_Pages(t *testing.T) {
	w, file, _, ts := staleServer(t)
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"wide-0001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w/wide"}` + "\n")
	parent := "null"
	for i := 0; i < 2500; i++ { // every user message is a row
		fmt.Fprintf(&b, `{"type":"message","id":"u%04d","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"entry %d"}}`+"\n", i, parent, i)
		parent = fmt.Sprintf(`"u%04d"`, i)
	}
	long := filepath.Join(filepath.Dir(file), "wide.jsonl")
	if err := os.WriteFile(long, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), long, true); err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`<a class="id" href="[^"]*" title="(?:u\d+)">(u\d+)</a> <span class="what">user</span> <span class="pv">entry (\d+)</span>`)
	for _, c := range []struct {
		query       string
		first, last string
		later       bool
	}{
		{"", "u0000", "u1999", true},
		{"?rows=2001", "u2000", "u2499", false},
		{"?rows=2500", "u2000", "u2499", false},
		{"?rows=99999", "u2000", "u2499", false},
	} {
		code, body := staleGet(t, ts.URL+"/s/wide-0001"+c.query)
		m := rows.FindAllStringSubmatch(body, -1)
		if code != 200 || len(m) == 0 || m[0][1] != c.first || m[len(m)-1][1] != c.last {
			t.Fatalf("tree page %q = %d, %d rows; want rows %s to %s with their previews", c.query, code, len(m), c.first, c.last)
		}
		for _, r := range m {
			if n, _ := strconv.Atoi(r[2]); r[1] != fmt.Sprintf("u%04d", n) {
				t.Fatalf("tree page %q: row %s has the preview of entry %s", c.query, r[1], r[2])
			}
		}
		if strings.Contains(body, `rel="next"`) != c.later || strings.Contains(body, `rel="prev"`) == (c.query == "") {
			t.Fatalf("tree page %q: later link %v, earlier link %v", c.query, strings.Contains(body, `rel="next"`), strings.Contains(body, `rel="prev"`))
		}
	}
}

// A branch point of 200 retries: the branch box lists the
// archive.PreviewSiblings branches on each side of the path's and says how
// many it leaves to the tree.
func TestTranscript_ManySiblings(t *testing.T) {
	w, file, _, ts := staleServer(t)
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"star-0001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w/star"}` + "\n")
	b.WriteString(`{"type":"message","id":"root","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"go"}}` + "\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"r%03d","parentId":"root","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"retry %d"}}`+"\n", i, i)
	}
	star := filepath.Join(filepath.Dir(file), "star.jsonl")
	if err := os.WriteFile(star, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), star, true); err != nil {
		t.Fatal(err)
	}
	_, body := staleGet(t, ts.URL+"/s/star-0001/r100")
	listed := regexp.MustCompile(`<li(?: class="here")?><a class="(?:this|sib)"[^>]*><code title="r\d+">(r\d+)</code>`).FindAllStringSubmatch(body, -1)
	if len(listed) != 51 || listed[0][1] != "r075" || listed[50][1] != "r125" {
		t.Fatalf("branch box lists %d branches (%v…), want the 51 from r075 to r125", len(listed), first(flat(listed)))
	}
	if !strings.Contains(body, "75 earlier branches") || !strings.Contains(body, "74 later branches") {
		t.Fatalf("branch box does not say 75 earlier and 74 later branches are left to the tree")
	}
}

func flat(m [][]string) []string {
	var out []string
	for _, x := range m {
		out = append(out, x[1])
	}
	return out
}

// A workspace that is no absolute path here (a session made on Windows)
// has its page by its exact name, as / links it; another relative path is
// a 400.
func TestWorkspace_AsWritten(t *testing.T) {
	w, file, _, ts := staleServer(t)
	win := filepath.Join(filepath.Dir(file), "win.jsonl")
	line := `{"type":"session","version":3,"id":"win-0001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"C:\\Users\\ana\\app"}` + "\n" +
		`{"type":"message","id":"w1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	if err := os.WriteFile(win, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), win, true); err != nil {
		t.Fatal(err)
	}
	_, home := staleGet(t, ts.URL+"/")
	href := `/w?path=C%3A%5CUsers%5Cana%5Capp`
	if !strings.Contains(home, `href="`+href+`"`) {
		t.Fatalf("/ does not link the workspace C:\\Users\\ana\\app as %s", href)
	}
	if code, body := staleGet(t, ts.URL+href); code != 200 || !strings.Contains(body, "win-0001") {
		t.Fatalf("GET %s = %d, want 200 listing win-0001", href, code)
	}
	if code, _ := staleGet(t, ts.URL+"/w?path=relative%2Fdir"); code != 400 {
		t.Fatalf("GET /w?path=relative/dir = %d, want 400", code)
	}
}

// A session id is only ever an id: one that holds a slash has its pages
// (the lists link it escaped), and a file path in its place names no
// session.
func TestSession_IDNotPath(t *testing.T) {
	w, file, _, ts := staleServer(t)
	odd := filepath.Join(filepath.Dir(file), "odd.jsonl")
	body := `{"type":"session","version":3,"id":"odd/slash","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w/odd"}` + "\n" +
		`{"type":"message","id":"o1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	if err := os.WriteFile(odd, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), odd, true); err != nil {
		t.Fatal(err)
	}
	if _, home := staleGet(t, ts.URL+"/"); !strings.Contains(home, `href="/s/odd%2Fslash"`) {
		t.Fatalf("/ does not link the session odd/slash as /s/odd%%2Fslash")
	}
	for _, u := range []string{"/s/odd%2Fslash", "/s/odd%2Fslash/o1"} {
		if code, page := staleGet(t, ts.URL+u); code != 200 || !strings.Contains(page, "odd/slash") {
			t.Fatalf("GET %s = %d, want 200 showing odd/slash", u, code)
		}
	}
	for _, u := range []string{"/s/" + strings.ReplaceAll(odd, "/", "%2F"), "/s/odd.jsonl"} {
		if code, _ := staleGet(t, ts.URL+u); code != 404 {
			t.Fatalf("GET %s (a file, not an id) = %d, want 404", u, code)
		}
	}
}

// Entry ids "." and ".." are linked as %2E and %2E%2E, which a browser
// does not resolve away, and the links answer.
func TestLinks_DotIDs(t *testing.T) {
	w, file, _, ts := staleServer(t)
	dots := filepath.Join(filepath.Dir(file), "dots.jsonl")
	body := `{"type":"session","version":3,"id":"dots-0001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w/dots"}` + "\n" +
		`{"type":"message","id":".","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"one"}}` + "\n" +
		`{"type":"message","id":"..","parentId":".","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"two"}}` + "\n"
	if err := os.WriteFile(dots, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), dots, true); err != nil {
		t.Fatal(err)
	}
	_, tree := staleGet(t, ts.URL+"/s/dots-0001")
	for _, href := range []string{`/s/dots-0001/%2E#entry-.`, `/s/dots-0001/%2E%2E#entry-..`} {
		if !strings.Contains(tree, `href="`+href+`"`) {
			t.Fatalf("the tree does not link %s", href)
		}
		u, _, _ := strings.Cut(href, "#")
		if code, page := staleGet(t, ts.URL+u); code != 200 || !strings.Contains(page, `id="entry-`+strings.TrimPrefix(href[strings.Index(href, "#")+1:], "entry-")+`"`) {
			t.Fatalf("GET %s = %d, want 200 with its entry", u, code)
		}
	}
}

// A role grove gives no entry and no indexed entry has is a bad request,
// answered as grove search refuses it (exit 2): with the role it differs
// from in case only, or with grove's roles. One of grove's roles that no
// entry has is searched, and said to be in no entry.
func TestSearch_UnknownRole(t *testing.T) {
	_, _, _, ts := staleServer(t)
	for _, tt := range []struct {
		query  string
		status int
		want   string
	}{
		{"q=jwt&role=User", 400, `no role &#34;User&#34;: roles are case-sensitive; did you mean &#34;user&#34;?`},
		{"q=jwt&role=user,bogus", 400, `no role &#34;bogus&#34;: grove&#39;s roles are user, assistant, toolResult`},
		{"q=jwt&role=hookMessage", 200, `no indexed entry has role &#34;hookMessage&#34;`},
	} {
		code, body := staleGet(t, ts.URL+"/search?"+tt.query)
		if code != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("/search?%s = %d, want %d with %s:\n%s", tt.query, code, tt.status, tt.want, body)
		}
	}
}
