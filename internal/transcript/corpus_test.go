package transcript

import (
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// TestRender_LargeCorpusSession renders a real pi v1 session (about a
// thousand entries, tool calls, edits with diffs, aborted turns) to its last
// entry in both formats.
func TestRender_LargeCorpusSession(t *testing.T) {
	p := testutil.MustShared(t, "corpus/pi/large-session.jsonl") // skips when ../shared is absent
	d := mustDoc(t, p, "corpus/pi/large-session.jsonl", "")
	md, page := render(t, d)
	if len(d.Entries) < 1000 {
		t.Errorf("path to the last entry has %d entries, want the whole linear session (over 1,000)", len(d.Entries))
	}
	for _, tc := range []struct{ name, out, want string }{
		{"Markdown", md, "### Tool result `edit`"},
		{"Markdown", md, "```diff\n"},
		{"Markdown", md, "**⚠ Aborted:**"},
		{"HTML", page, `<span class="add">`},
	} {
		if !strings.Contains(tc.out, tc.want) {
			t.Errorf("%s(large-session) lacks %q", tc.name, tc.want)
		}
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Errorf("HTML(large-session) contains <script")
	}
}
