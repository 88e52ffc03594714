package serve_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// What a person typed keeps its line breaks on the page: a user message
// of several lines (a pasted stack trace, a list of steps without Markdown)
// shows line by line, as the agent's own terminal showed it, while it is
// still Markdown (emphasis, code). A model's reply is Markdown as written:
// its single line breaks join the lines of a paragraph.
func TestBrowser_UserLinesKeepTheirBreaks(t *testing.T) {
	const typed = `first line of the prompt\nat main.go:12 *emphasised*\nat lib.go:40`
	session := `{"type":"session","version":3,"id":"11111111-2222-4333-8444-555555555555","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/workspace/lines"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-03-03T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"` + typed + `"}]}}` + "\n" +
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-03-03T08:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"one sentence\nwrapped in the source"}]}}` + "\n"
	s := mustSiteOf(t, siteOptions{Made: map[string][]byte{"lines.jsonl": []byte(session)}})
	b := mustTab(t)
	b.open(s, "/s/11111111-2222-4333-8444-555555555555/a1")
	// The page may first say the index is catching up, and reload.
	b.do("wait for the transcript", chromedp.Poll[chromedp.Void](`document.querySelector('#entry-a1 .md p') !== null`, chromedp.WithPollingInterval(20*time.Millisecond)))
	user := eval[string](b, `document.querySelector('#entry-u1 .md p').innerText`)
	if want := "first line of the prompt\nat main.go:12 emphasised\nat lib.go:40"; user != want {
		t.Errorf("the user's message reads %q, want its lines %q", user, want)
	}
	if n := eval[int](b, `document.querySelectorAll('#entry-u1 .md em').length`); n != 1 {
		t.Errorf("the user's message is no longer Markdown: %d <em>, want 1", n)
	}
	reply := eval[string](b, `document.querySelector('#entry-a1 .md p').innerText`)
	if strings.Contains(reply, "\n") {
		t.Errorf("the model's paragraph reads %q, want its lines joined", reply)
	}
}
