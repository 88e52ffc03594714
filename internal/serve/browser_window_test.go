package serve_test

// The transcript's column uses the window (SPEC §9): in a real browser at
// the widths people use, the entries fill the window less its margins,
// and a long line wraps instead of widening the page.

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// At 1280 and 1920 pixels wide, the transcript of rewindSession (whose
// messages hold a word of 3,000 characters, in prose and in a code
// block) has its entries at least 85 % of the window wide, no element
// wider than the window, and the page scrolls only down; the tree of the
// same session scrolls only down too.
func TestBrowser_TranscriptUsesWindow(t *testing.T) {
	s := mustSiteOf(t, siteOptions{Made: map[string][]byte{rewindID + ".jsonl": []byte(rewindFile(t, 3000))}})
	b := mustTab(t)
	for _, width := range []int64{1280, 1920} {
		b.do(fmt.Sprintf("a window %d wide", width), chromedp.EmulateViewport(width, 900))
		for _, leaf := range []string{rewindUUIDs[3], rewindUUIDs[5]} {
			b.open(s, "/s/"+rewindID+"/"+leaf)
			if got := len(b.entryIDs()); got != 4 {
				t.Fatalf("at %d px: the transcript of %s shows %d entries, want 4", width, leaf, got)
			}
			inner := eval[float64](b, `window.innerWidth`)
			if got := eval[float64](b, `document.getElementById("entries").getBoundingClientRect().width`); got < 0.85*inner {
				t.Errorf("at %d px: the transcript of %s is %.0f px wide, want at least 85 %% of the window's %.0f", width, leaf, got, inner)
			}
			if got := eval[float64](b, `document.documentElement.scrollWidth`); got > inner {
				t.Errorf("at %d px: the transcript of %s is %.0f px wide to scroll, want no wider than the window (%.0f): a long line did not wrap", width, leaf, got, inner)
			}
			wide := eval[[]string](b, `Array.from(document.querySelectorAll("#entries *")).filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).map((e) => e.tagName + "." + e.className)`)
			if len(wide) > 0 {
				t.Errorf("at %d px: in the transcript of %s, %d elements reach past the window's right edge: %v", width, leaf, len(wide), wide[:min(5, len(wide))])
			}
		}
		b.open(s, "/s/"+rewindID+"?full=1")
		if got, inner := eval[float64](b, `document.documentElement.scrollWidth`), eval[float64](b, `window.innerWidth`); got > inner {
			t.Errorf("at %d px: the tree is %.0f px wide to scroll, want no wider than the window (%.0f)", width, got, inner)
		}
	}
}
