package transcript

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// fuzzDialects are the dialects FuzzRender renders in, by its dialect
// argument (modulo their number).
var fuzzDialects = []string{"pi", "plain", "messages", "claude", "codex"}

// FuzzRender feeds arbitrary bytes as an entry's Raw, with arbitrary type,
// role and label strings, in each dialect, to both renderers: neither may
// panic or fail, and the page may never hold a script element. The seeds
// are every line of the golden fixtures of every dialect, with the type
// and role the reader gives them.
func FuzzRender(f *testing.F) {
	seed := func(path, dialect string) {
		entries, _, err := jsonl.ReadFile(path, jsonl.Salvage)
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range entries {
			f.Add([]byte(e.Raw), e.Type, e.Role, "", slices.Index(fuzzDialects, dialect))
		}
	}
	for _, file := range []string{"pi/v3-tree.jsonl", "pi/v2-branches.jsonl", "pi/v1-linear.jsonl"} {
		seed(testutil.Testdata(f, file), "pi")
	}
	seed(testutil.Testdata(f, "plain/chapter-tree.jsonl"), "plain")
	for _, tc := range dialectCases {
		seed("testdata/fixtures/"+tc.file, tc.name)
	}
	f.Add([]byte(msg(`{"role":"user","content":`+js(unclosed)+`}`)), "message", "user", "<script>", 0)
	f.Add([]byte(msg(`{"role":"assistant","content":[{"type":"text","text":"<scr<script>ipt>x</script>"}]}`)), "message", "assistant", "", 0)
	f.Add([]byte(`{"type":"label","targetId":"e1","label":"<SCRIPT>"}`), "label", "", "", 0)
	f.Add([]byte("\xff\x00{"), "", "", "\xff", 0)
	f.Add([]byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"<script>","content":[{"type":"image","source":{"type":"base64","media_type":"image/png\"><script>","data":"iVBORw0KGgo="}}]}]}`), "message", "user", "", 2)
	f.Add([]byte(`{"type":"user","uuid":"u","message":{"role":"user","content":"<bash-input><script>x</script></bash-input>"}}`), "user", "user", "", 3)
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","logicalParentUuid":"<script>","uuid":"e2"}`), "compact_boundary", "", "", 3)
	f.Add([]byte(`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_image","image_url":"data:text/html,<script>alert(1)</script>"}]}}`), "response_item", "user", "", 4)
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"</details><script>\"}"}}`), "response_item", "function_call", "", 4)
	f.Fuzz(func(t *testing.T, raw []byte, typ, role, label string, dialect int) {
		ms := int64(-62135596800000) // year 1: times far from now must format too
		dl := fuzzDialects[(dialect%len(fuzzDialects)+len(fuzzDialects))%len(fuzzDialects)]
		d := Doc{SessionID: typ, Name: label, Leaf: role, Dialect: dl, Entries: []Entry{
			{ID: label, Type: typ, Role: role, Label: label, TimestampMs: &ms, Raw: raw},
			{ID: "e2", Type: "message", Role: role, Raw: raw},
			{ID: "e3", Type: typ, Role: role, Raw: raw}, // a second of a kind: paired results, repeated turn contexts
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
