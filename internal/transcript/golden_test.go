package transcript

import (
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// goldenCases are the fixture sessions of testdata/ and the leaf each
// transcript ends at.
var goldenCases = []struct {
	name, file, leaf string
}{
	{"v3-tree", "pi/v3-tree.jsonl", "1b3f5d9a"},         // compaction, bashExecution, hidden custom_message, custom entry, labels
	{"v2-branches", "pi/v2-branches.jsonl", "5f1b7d2e"}, // hookMessage, edit diff, label entry
	{"v1-linear", "pi/v1-linear.jsonl", "L11"},          // synthetic ids, thinking, model and thinking level changes
	{"plain", "plain/chapter-tree.jsonl", ""},           // plain dialect: string user content, metadata
}

func TestTranscript_Golden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			d := mustDoc(t, testutil.Testdata(t, tc.file), "testdata/"+tc.file, tc.leaf)
			md, page := render(t, d)
			golden(t, tc.name+".md", md)
			golden(t, tc.name+".html", page)
			md2, page2 := render(t, d)
			if md2 != md || page2 != page {
				t.Errorf("rendering %s twice gave different bytes, want the same", tc.name)
			}
		})
	}
}
