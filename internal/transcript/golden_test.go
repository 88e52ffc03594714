package transcript

import (
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// goldenCases are the fixture sessions of testdata/ and the leaf each
// transcript ends at.
var goldenCases = []struct {
	name, file, leaf string
	edited           map[string]string // Entry.Edited by id, as archive's ContextEdits gives it
}{
	{"v3-tree", "pi/v3-tree.jsonl", "1b3f5d9a", nil},         // compaction, bashExecution, hidden custom_message, custom entry, labels
	{"v2-branches", "pi/v2-branches.jsonl", "5f1b7d2e", nil}, // hookMessage, edit diff, label entry
	{"v1-linear", "pi/v1-linear.jsonl", "L11", nil},          // synthetic ids, thinking, model and thinking level changes
	{"plain", "plain/chapter-tree.jsonl", "", nil},           // plain dialect: string user content, metadata
	// pi 1.x: context_edit entries (a replacement, null), usage entries,
	// entries an edit replaced or removed.
	{"pi-edits", "pi-1.6/edits.jsonl", "ed0us001", map[string]string{"ed0u0001": "replaced", "ed0x0001": "removed"}},
}

func TestTranscript_Golden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			d := mustDoc(t, testutil.Testdata(t, tc.file), "testdata/"+tc.file, tc.leaf)
			for i := range d.Entries {
				d.Entries[i].Edited = tc.edited[d.Entries[i].ID]
			}
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

// dialectCases are the hand-written fixtures of testdata/fixtures, one per
// dialect grove reads besides pi and plain, each covering every kind of
// entry and content block its transcript shows; the path is the one to
// the last entry.
var dialectCases = []struct {
	name, file string
}{
	// compact_boundary root, compact summary, isMeta, CLI wrappers, image,
	// thinking (empty and redacted too), Bash, Read, Edit, tool results
	// paired and folded, is_error, system, progress, attachment, an
	// unknown type; metadata lines between entries.
	{"claude", "claude/5b0c1d2e-0000-4000-8000-000000000001.jsonl"},
	// messages by role, injected context, image, event_msg copies,
	// token counts and a repeated turn_context (not shown), reasoning
	// summaries and encrypted reasoning, function calls with JSON and
	// other arguments, outputs (string, object, old shell JSON, list),
	// apply_patch, local shell, web search, an unknown item, compaction,
	// rollback, aborted turn, other events, an unknown envelope type.
	{"codex", "codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"},
	// string and block content, tool_use and tool_result (an error),
	// thinking, image, another role.
	{"messages", "messages/session.jsonl"},
}

func TestTranscript_GoldenDialects(t *testing.T) {
	for _, tc := range dialectCases {
		t.Run(tc.name, func(t *testing.T) {
			rel := "testdata/fixtures/" + tc.file
			d := mustDoc(t, rel, rel, "")
			if d.Dialect != tc.name {
				t.Fatalf("jsonl.ReadFile(%s) read dialect %q, want %q", rel, d.Dialect, tc.name)
			}
			md, page := render(t, d)
			golden(t, tc.name+".md", md)
			golden(t, tc.name+".html", page)
			md2, page2 := render(t, d)
			if md2 != md || page2 != page {
				t.Errorf("rendering %s twice gave different bytes, want the same", tc.name)
			}
			// The fixtures' base64 (a PNG, a JPEG, a PDF), signatures and
			// encrypted content never reach a transcript.
			for _, data := range []string{"iVBORw0KGgo", "/9j/4AAQ", "JVBERi0xLjQK", "EoSIG", "gAAAA", "ENCRYPTED"} {
				if strings.Contains(md, data) || strings.Contains(page, data) {
					t.Errorf("the %s transcript shows %q, data that must be left out", tc.name, data)
				}
			}
		})
	}
}
