package serve_test

import (
	"regexp"
	"strings"
	"testing"
)

// grove serve shows what pi 1.x's context edits did (SPEC §4.1): a search
// hit whose text an edit on its session's active path replaced or removed
// carries a badge saying so, and a transcript marks the entries an edit at
// its leaf changed; the path to a leaf before any edit marks none.
func TestServe_MarksContextEdits(t *testing.T) {
	f := mustServer(t, nil, "pi-1.6")
	res := get(t, f.h, "/search?q=hunter2")
	if res.Status != 200 {
		t.Fatalf("GET /search?q=hunter2 = %d", res.Status)
	}
	hits := regexp.MustCompile(`(?s)<li class="hit">.*?</li>`).FindAllString(res.Body, -1)
	marks := map[string]string{}
	for _, h := range hits {
		id := regexp.MustCompile(`#entry-([^"]+)"`).FindStringSubmatch(h)
		badge := regexp.MustCompile(`<span class="badge edited"[^>]*>edited: (\w+)</span>`).FindStringSubmatch(h)
		if id == nil {
			t.Fatalf("hit without a link to its entry: %s", h)
		}
		if badge != nil {
			marks[id[1]] = badge[1]
		} else {
			marks[id[1]] = ""
		}
	}
	want := map[string]string{"ed0u0001": "replaced", "ed0t0002": "replaced", "ed0x0001": "removed"}
	if len(marks) != len(want) {
		t.Fatalf("hits %v, want %v", marks, want)
	}
	for id, w := range want {
		if marks[id] != w {
			t.Errorf("hit %s marked %q, want %q", id, marks[id], w)
		}
	}
	if res := get(t, f.h, "/search?q=password"); !strings.Contains(res.Body, "ed0a0010") || strings.Count(res.Body, `class="badge edited"`) != 1 {
		t.Errorf("search password: want ed0a0010, on another branch, unmarked and ed0u0001 marked")
	}

	page := get(t, f.h, "/s/16e0a001/ed0us001").Body
	entry := func(body, id string) string {
		i := strings.Index(body, `id="entry-`+id+`"`)
		if i < 0 {
			t.Fatalf("no entry %s in the transcript", id)
		}
		j := strings.Index(body[i:], "</header>")
		return body[i : i+j]
	}
	if e := entry(page, "ed0u0001"); !strings.Contains(e, `<span class="badge">edited</span> the model sees a context edit`) {
		t.Errorf("entry ed0u0001 at the active leaf is not marked edited: %s", e)
	}
	if e := entry(page, "ed0x0001"); !strings.Contains(e, `<span class="badge">removed</span>`) {
		t.Errorf("entry ed0x0001 at the active leaf is not marked removed: %s", e)
	}
	if e := entry(page, "ed0a0001"); strings.Contains(e, "context edit") {
		t.Errorf("entry ed0a0001, which no edit names, is marked: %s", e)
	}
	if page := get(t, f.h, "/s/16e0a001/ed0u0011").Body; strings.Contains(page, "the model sees a context edit") {
		t.Errorf("the path to ed0u0011, before any edit, marks an entry edited")
	}
}
