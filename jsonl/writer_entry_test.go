package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

// The writer's entries (SPEC §5): what MarshalEntry refuses, each dialect's shapes, and committed bytes kept as given.

// SPEC §5 validation: each rejection is invalid_entry naming the field path.
func TestMarshalEntry_Rejections(t *testing.T) {
	cyc := map[string]any{"id": "c"}
	cyc["self"] = cyc
	sl := []any{1}
	sl[0] = sl
	args := func(v any) map[string]any {
		return map[string]any{"id": "a", "parentId": nil, "timestamp": 1, "type": "message", "message": map[string]any{
			"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": "c1", "name": "read", "arguments": map[string]any{"path": v}}}}}
	}
	tests := []struct {
		name  string
		v     any
		field string
	}{
		{"NaN", args(math.NaN()), "message.content[0].arguments.path"},
		{"+Inf", args(math.Inf(1)), "message.content[0].arguments.path"},
		{"invalid UTF-8 string", args("\xff"), "message.content[0].arguments.path"},
		{"invalid UTF-8 key", map[string]any{"id": "a", "k\xffey": 1}, "(entry)"},
		{"map cycle", cyc, "self"},
		{"slice cycle", map[string]any{"list": sl}, "list[0]"},
		{"channel", args(make(chan int)), "message.content[0].arguments.path"},
		{"func", map[string]any{"f": func() {}}, "f"},
		{"struct", map[string]any{"s": struct{ A int }{1}}, "s"},
		{"int beyond 2^53", args(int64(1) << 53), "message.content[0].arguments.path"},
		{"uint beyond 2^53", args(uint64(1) << 60), "message.content[0].arguments.path"},
		{"non-string keys", map[string]any{"m": map[int]string{1: "x"}}, "m"},
		{"raw big integer", []byte(`{"id":"a","n":[1,12345678901234567890]}`), "n[1]"},
		{"raw invalid UTF-8", []byte("{\"id\":\"\xff\"}"), ""},
		{"raw 1e999", []byte(`{"id":"a","usage":{"cost":1e999}}`), "usage.cost"},
		{"raw integer-valued float beyond 2^53", []byte(`{"id":"a","n":9007199254740993.0}`), "n"},
		{"raw exponent beyond 2^53", []byte(`{"id":"a","n":9.007199254740993e15}`), "n"},
		{"raw digits a float64 drops", []byte(`{"id":"a","x":0.12345678901234567890123}`), "x"},
		{"raw lone surrogate", []byte(`{"id":"a","s":["ok","\ud800"]}`), "s[1]"},
		{"raw lone low surrogate", []byte(`{"id":"a","s":"\udc00x"}`), "s"},
		{"raw duplicate key", []byte(`{"id":"a","m":{"k":1,"k":2}}`), "m.k"},
		{"raw duplicate id", []byte(`{"id":"a","id":"b"}`), "id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MarshalEntry(tt.v)
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.CodeInvalidEntry || e.ID != tt.field {
				t.Fatalf("MarshalEntry = %v (field %q), want invalid_entry at %q", err, e.ID, tt.field)
			}
		})
	}
	// What is accepted reads back unchanged: a surrogate pair, 1.50, 1e20,
	// 2^53−1 and 0.1 are all kept.
	if _, err := MarshalEntry([]byte(`{"id":"a","s":"\ud83c\udf33","n":[1.50,1e20,9007199254740991,-9007199254740991,0.1]}`)); err != nil {
		t.Fatalf("MarshalEntry(valid raw) = %v", err)
	}
	// What is accepted reads back unchanged.
	ok := args(int64(1)<<53 - 1)
	b, err := MarshalEntry(ok)
	if err != nil || !bytes.Contains(b, []byte("9007199254740991")) {
		t.Fatalf("MarshalEntry(2^53-1) = %s, %v", b, err)
	}
}

// Missing or mistyped required fields of the file's dialect are refused at
// call time with the field path.
func TestWriter_DialectValidation(t *testing.T) {
	w := mustOpenWriter(t, filepath.Join(t.TempDir(), "s.jsonl"))
	bad := map[string]any{"id": "a", "parentId": nil, "timestamp": 1, "type": "message", "message": map[string]any{
		"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": "c1", "name": "read", "arguments": "README.md"}}}}
	err := w.Append(bad)
	if errs.CodeOf(err) != errs.CodeInvalidEntry || !strings.Contains(err.Error(), "message.content[0].arguments: is a string, want an object") {
		t.Fatalf("append = %v, want invalid_entry naming message.content[0].arguments", err)
	}
}

// A process that ignores the lock (an agent writing the file itself) leaves
// a partial line: the writer must not fuse its line onto it (case 02).
func TestWriter_ForeignBytesStopTheWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w := mustOpenWriter(t, path)
	if err := w.Append(msg("r", nil, "root")); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"id":"foreign","parentId":"r"`)
	f.Close()
	before, _ := os.ReadFile(path)
	err := w.Append(msg("a", "r", "mine"))
	if errs.CodeOf(err) != errs.CodeTainted || !strings.Contains(err.Error(), "another process") {
		t.Fatalf("append after foreign bytes = %v, want tainted naming another process", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatalf("the writer wrote after the foreign partial line:\n%s", after)
	}
}

// In a pi file the writer holds user, assistant and toolResult messages to
// pi's own shapes, which every message of the real corpus session has.
func TestWriter_PiMessageShapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pi.jsonl")
	w := mustOpenWriter(t, path)
	if err := w.Append([]byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ msg, field string }{
		{`{"role":"assistant","content":"notarray"}`, "message.content"},
		{`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"read","arguments":"{}"}]}`, "message.content[0].arguments"},
		{`{"role":"toolResult","toolCallId":5,"toolName":"read","isError":false,"content":[]}`, "message.toolCallId"},
	} {
		err := w.Append([]byte(`{"type":"message","id":"m","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":` + tc.msg + `}`))
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != errs.CodeInvalidEntry || e.ID != tc.field {
			t.Errorf("append %s = %v, want invalid_entry at %s", tc.msg, err, tc.field)
		}
	}
	// Roles pi adds (bashExecution, custom, ...) keep their own shapes.
	if err := w.Append([]byte(`{"type":"message","id":"b","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"bashExecution","command":"ls","output":"","exitCode":0}}`)); err != nil {
		t.Fatalf("bashExecution append = %v", err)
	}
	corpus := filepath.Join("..", "..", "shared", "corpus", "pi", "large-session.jsonl")
	entries, _, err := ReadFile(corpus, Salvage)
	if err != nil {
		t.Skipf("skipping the corpus half: %v (../shared is absent)", err)
	}
	n := 0
	for _, e := range entries {
		if e.Type == "message" && (e.Role == "user" || e.Role == "assistant" || e.Role == "toolResult") {
			n++
			if _, err := checkPlainMessage(Field(e.Raw, "message")); err != nil {
				t.Errorf("corpus line %d: the writer would refuse a real pi message: %v", e.Line, err)
			}
		}
	}
	if n < 900 {
		t.Fatalf("checked %d corpus messages, want the session's 914", n)
	}
}

// Field paths are built only for an error: a value nested 2,000 deep under
// 500-byte keys costs memory linear in its size (a path per level would
// take a gigabyte).
func TestMarshalEntry_DeepNestingIsLinear(t *testing.T) {
	key := strings.Repeat("k", 500)
	var v any = 1
	raw := "1"
	for i := 0; i < 2000; i++ {
		v = map[string]any{key: v}
		raw = `{"` + key + `":` + raw + `}`
	}
	for name, in := range map[string]any{"go value": map[string]any{"id": "a", "deep": v}, "raw": []byte(`{"id":"a","deep":` + raw + `}`)} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := MarshalEntry(in); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 300<<20 {
			t.Errorf("%s: MarshalEntry allocated %d MB for a 1 MB value", name, alloc>>20)
		}
	}
}

// CopyAsync copies committed history byte for byte (SPEC §5, forks): what
// Append refuses as new input — integers beyond 2^53, escaped lone
// surrogates, whitespace, a bad timestamp — is copied; what a reader calls
// a bad line, a line holding a LF and a broken tree are still refused.
func TestWriter_CopyAsyncKeepsCommittedBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fork.jsonl")
	w := mustOpenWriter(t, path)
	defer w.Close()
	lines := []string{
		`{"type":"session","version":3,"id":"f","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"cut \ud83d"}}`,
		`{"type":"compaction","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","summary":"s","tokensBefore":12345678901234567890}`,
		`{"type":"custom", "id":"c","parentId":"b","timestamp":"yesterday","customType":"x","data":{"n":-9007199254740993}}`,
	}
	for i, l := range lines {
		if err := w.CopyAsync([]byte(l)).Wait(); err != nil {
			t.Fatalf("CopyAsync(line %d): %v", i+1, err)
		}
	}
	// The same entries as new input (fresh ids) are refused, each for its reason.
	for i, why := range []string{"lone UTF-16 surrogate", "beyond ±(2^53−1)", "data.n"} {
		l := strings.Replace(lines[i+1], `"id":"`, `"id":"n`, 1)
		if err := w.Append(json.RawMessage(l)); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Append(%s) = %v, want invalid_entry naming %q: the writer's strictness is for new entries", l, err, why)
		}
	}
	for _, bad := range []string{
		`{"type":"message","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:03.000Z"}`,                  // no message: a bad line
		`{"type":"custom","id":"d","parentId":"zz","timestamp":"2026-01-01T00:00:03.000Z","customType":"x"}`, // missing parent
		"{\"type\":\"custom\",\"id\":\"d\",\"parentId\":\"c\",\n\"customType\":\"x\"}",                       // two lines
	} {
		if err := w.CopyAsync([]byte(bad)).Wait(); err == nil {
			t.Errorf("CopyAsync(%q) succeeded, want it refused", bad)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(lines, "\n") + "\n"; string(got) != want {
		t.Errorf("file =\n%s\nwant the copied lines byte for byte:\n%s", got, want)
	}
}
