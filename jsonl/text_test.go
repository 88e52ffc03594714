package jsonl

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendSearchText(t *testing.T) {
	b64 := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", 20)
	tests := []struct {
		name, line, want string
	}{
		{"user string", `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"fix the \"parser\"\nplease"}}`, "fix the \"parser\"\nplease\n"},
		{"user blocks with image", `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"` + b64 + `","mimeType":"image/png"}]}}`, "look\n"},
		{"assistant", `{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls -la","opts":{"n":[1,"deep"]}}}]}}`, "hmm\nok\nbash\nls -la\ndeep\n"},
		{"tool result", `{"type":"message","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"total 0"},{"type":"image","data":"xx"}],"isError":false}}`, "total 0\n"},
		{"bash execution", `{"type":"message","message":{"role":"bashExecution","command":"make","output":"ok\n","exitCode":0}}`, "make\nok\n\n"},
		{"custom role", `{"type":"message","message":{"role":"custom","customType":"x","content":"hello"}}`, "hello\n"},
		{"branch summary role", `{"type":"message","message":{"role":"branchSummary","summary":"went left"}}`, "went left\n"},
		{"compaction", `{"type":"compaction","summary":"earlier work","firstKeptEntryId":"a"}`, "earlier work\n"},
		{"branch_summary", `{"type":"branch_summary","fromId":"a","summary":"tried X"}`, "tried X\n"},
		{"custom_message", `{"type":"custom_message","customType":"n","content":[{"type":"text","text":"note"}]}`, "note\n"},
		{"custom data", `{"type":"custom","customType":"n","data":{"k":"v","n":3}}`, "v\n"},
		{"session_info", `{"type":"session_info","name":"refactor"}`, "refactor\n"},
		{"label", `{"type":"label","targetId":"a","label":"good"}`, "good\n"},
		{"plain metadata string", `{"type":"metadata","key":"cwd","value":"/src"}`, "/src\n"},
		{"plain metadata number", `{"type":"metadata","key":"n","value":3}`, ""},
		{"model change", `{"type":"model_change","provider":"x","modelId":"y"}`, ""},
		{"escapes", `{"type":"session_info","name":"a\u00e9\ud83d\ude00\t\/"}`, "aé😀\t/\n"},
		{"lone surrogate", `{"type":"session_info","name":"x\ud800y"}`, "x\uFFFDy\n"},
		{"base64 string", `{"type":"session_info","name":"` + b64 + `"}`, ""},
		{"data uri", `{"type":"session_info","name":"data:image/png;base64,AAAA"}`, ""},
		{"ANSI colours", `{"type":"session_info","name":"\u001b[31merror\u001b[0m: \u001b[1;32mok\u001b]8;;http://x\u0007 link\u001b]8;;\u001b\\ pre\u001b[1mfix\u001b(Bset"}`, "error: ok link prefixset\n"},
		{"lone escape at the end", `{"type":"session_info","name":"a\u001b"}`, "a\x1b\n"},
		{"base64 inside text", `{"type":"session_info","name":"see {\"image\": \"` + b64 + `\"} done"}`, "see {\"image\": \" \"} done\n"},
		{"long word kept", `{"type":"session_info","name":"` + strings.Repeat("abcdefgh", 40) + ` x"}`, strings.Repeat("abcdefgh", 40) + " x\n"},
		{"not an object", `[1,2]`, ""},
		{"cut short", `{"type":"session_info","name":"abc`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendSearchText(nil, []byte(tt.line))); got != tt.want {
				t.Errorf("AppendSearchText(%s) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

// FuzzUnquote compares unquote with encoding/json on every valid JSON
// string and checks that it never panics on the others.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`abc`, `a\nb`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\ud800\u0041`, `\"\\\/`, `\u12`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := string(unquote(nil, []byte(s)))
		var want string
		if json.Unmarshal([]byte(`"`+s+`"`), &want) == nil && got != want && !strings.Contains(want, "\uFFFD") {
			t.Errorf("unquote(%q) = %q, encoding/json says %q", s, got, want)
		}
	})
}

// FuzzAppendSearchText: any bytes give some text and no panic.
func FuzzAppendSearchText(f *testing.F) {
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"x","arguments":{"a":["b",{"c":"d"}]}}]}}`))
	f.Add([]byte(`{"type":"custom","data":[[[[[[[[["deep"]]]]]]]]]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		_ = AppendSearchText(nil, line)
	})
}
