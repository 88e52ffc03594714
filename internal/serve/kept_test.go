package serve_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// A session whose file is gone (SPEC §11): once the writer's next pass
// marks it gone, its tree (but for its state, gone), its transcript and a
// search answer as they did from the file, byte for byte, from the kept
// store; the home page says what the store costs.
func TestServer_GoneAnswersFromKept(t *testing.T) {
	w, file, _, ts := staleServer(t)
	pages := []string{"/s/5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13", "/s/5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13/b7395fc2", "/search?q=JWT"}
	before := map[string]string{}
	for _, p := range pages {
		code, body := staleGet(t, ts.URL+p)
		if code != 200 {
			t.Fatalf("GET %s: %d", p, code)
		}
		before[p] = body
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	sum, err := w.Index(context.Background(), archive.IndexOptions{Files: []string{file}})
	if err != nil || sum.Gone != 1 || sum.Removed != 0 {
		t.Fatalf("index after the file was removed: %+v, %v; want 1 gone, none removed", sum, err)
	}
	const ok, gone = `<span class="state st-ok">ok</span>`, `<span class="state st-gone">gone</span>`
	for i, p := range pages {
		code, body := staleGet(t, ts.URL+p)
		if i == 0 { // the tree's facts say the session is gone, as they say damaged
			if !strings.Contains(body, gone) {
				t.Errorf("GET %s with the file gone: the state is not gone", p)
			}
			body = strings.Replace(body, gone, ok, 1)
		}
		if code != 200 || body != before[p] {
			t.Errorf("GET %s with the file gone: %d, %d bytes; want 200 and the %d bytes it answered before", p, code, len(body), len(before[p]))
		}
	}
	if _, home := staleGet(t, ts.URL+"/"); !strings.Contains(home, "1 session gone") || !strings.Contains(home, "Kept: ") {
		t.Errorf("the home page does not say what the kept store costs")
	}
}
