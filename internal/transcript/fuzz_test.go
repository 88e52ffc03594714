package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// FuzzRender feeds arbitrary bytes as an entry's Raw, with arbitrary type,
// role and label strings, to both renderers: neither may panic or fail, and
// the page may never hold a script element.
func FuzzRender(f *testing.F) {
	for _, file := range []string{"pi/v3-tree.jsonl", "pi/v2-branches.jsonl", "pi/v1-linear.jsonl", "plain/chapter-tree.jsonl"} {
		b, err := os.ReadFile(testutil.Testdata(f, file))
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			var probe struct {
				Type    string `json:"type"`
				Message struct {
					Role string `json:"role"`
				} `json:"message"`
			}
			_ = json.Unmarshal(l, &probe)
			f.Add(l, probe.Type, probe.Message.Role, "")
		}
	}
	f.Add([]byte(msg(`{"role":"user","content":`+js(unclosed)+`}`)), "message", "user", "<script>")
	f.Add([]byte(msg(`{"role":"assistant","content":[{"type":"text","text":"<scr<script>ipt>x</script>"}]}`)), "message", "assistant", "")
	f.Add([]byte(`{"type":"label","targetId":"e1","label":"<SCRIPT>"}`), "label", "", "")
	f.Add([]byte("\xff\x00{"), "", "", "\xff")
	f.Fuzz(func(t *testing.T, raw []byte, typ, role, label string) {
		ms := int64(-62135596800000) // year 1: times far from now must format too
		d := Doc{SessionID: typ, Name: label, Leaf: role, Entries: []Entry{
			{ID: label, Type: typ, Role: role, Label: label, TimestampMs: &ms, Raw: raw},
			{ID: "e2", Type: "message", Role: role, Raw: raw},
		}}
		var md, page bytes.Buffer
		if err := Markdown(&md, d); err != nil {
			t.Fatalf("Markdown(%q) = %v, want nil", raw, err)
		}
		if err := HTML(&page, d); err != nil {
			t.Fatalf("HTML(%q) = %v, want nil", raw, err)
		}
		if strings.Contains(strings.ToLower(page.String()), "<script") {
			t.Fatalf("HTML(%q) contains <script", raw)
		}
	})
}
