package transcript

import (
	"strings"
	"testing"
)

// parseObject and parseArray are jsonl.Members and jsonl.Elements: members
// in the order written, a key given twice kept twice (lookups see the
// last), values byte for byte, and nothing for what is not one valid object
// or array.
func TestParseObject(t *testing.T) {
	o, ok := parseObject([]byte(` {"a": [1, 2] ,"b":"x","a":null} `))
	if !ok || len(o) != 3 || o[0].Key != "a" || string(o[0].Val) != "[1, 2]" || o[1].Key != "b" || string(o.get("a")) != "null" {
		t.Errorf("parseObject = %q, %v", o, ok)
	}
	for _, bad := range []string{``, `[1]`, `{"a":1`, `{"a":1}x`, `{"a":1,}`} {
		if o, ok := parseObject([]byte(bad)); ok || o != nil {
			t.Errorf("parseObject(%q) = %q, %v; want nil, false", bad, o, ok)
		}
	}
	if a, ok := parseArray([]byte(`[ ]`)); !ok || a == nil || len(a) != 0 {
		t.Errorf("parseArray([ ]) = %q, %v; want empty, true", a, ok)
	}
	if a, ok := parseArray([]byte(`[1,`)); ok || a != nil {
		t.Errorf("parseArray([1,) = %q, %v; want nil, false", a, ok)
	}
}

// pretty decodes through encoding/json's token stream, not the jsonl
// walker: its cost stays linear at any depth, and nesting beyond
// encoding/json's limit of 10,000 (which json.Valid, and so jsonl.Members,
// refuses) is still printed, indented no further than maxIndent.
func TestPretty(t *testing.T) {
	if got := pretty([]byte(`{"b":1,"a":"\u00e9","b":[true,null,1.50]}`)); got != "{\n  \"b\": 1,\n  \"a\": \"é\",\n  \"b\": [\n    true,\n    null,\n    1.50\n  ]\n}" {
		t.Errorf("pretty = %q", got)
	}
	for _, bad := range []string{`{"a":1`, `{"a":1} {}`, `nul`} {
		if got := pretty([]byte(bad)); got != bad {
			t.Errorf("pretty(%q) = %q, want it as written", bad, got)
		}
	}
	const depth = 10001
	deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	got := pretty([]byte(deep))
	if got == deep || strings.Count(got, "[") != depth || strings.Contains(got, strings.Repeat(" ", maxIndent+1)) {
		t.Errorf("pretty of %d nested arrays = %.80q..., want it indented, at most %d spaces", depth, got, maxIndent)
	}
}
