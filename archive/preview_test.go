package archive_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grove-sessions/grove/archive"
)

func TestPreview(t *testing.T) {
	tests := []struct {
		name, line, want string
		width            int // 0: PreviewWidth
	}{
		{"user text", `{"type":"message","message":{"role":"user","content":"fix  the\nbuild"}}`, "fix the build", 0},
		{"tool call keeps && and <>", `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"bash","arguments":{"command":"cd a && make <x>"}}]}}`, `→ bash {"command":"cd a && make <x>"}`, 0},
		{"metadata", `{"type":"metadata","key":"cwd","value":"/a&b"}`, `cwd = "/a&b"`, 0},
		{"bash run", `{"type":"message","message":{"role":"bashExecution","command":"ls -la"}}`, "$ ls -la", 0},
		{"cleared label", `{"type":"label","targetId":"x1"}`, "label x1 cleared", 0},
		{"clipped", `{"type":"message","message":{"role":"user","content":"abcdefghijklmnop"}}`, "abcdefghi…", 10},
		{"not JSON", `{"type":`, "", 0},
		{"string custom_message content", `{"type":"custom_message","customType":"w","content":"note"}`, "[w] note", 0},
		{"a field of another type is skipped, not fatal", `{"type":"message","message":{"role":"toolResult","toolName":7,"content":[{"type":"text","text":"ok"}]}}`, "[] ok", 0},
		{"assistant thinking only", `{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"}]}}`, "(thinking) hmm", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.width
			if w == 0 {
				w = archive.PreviewWidth
			}
			if got := archive.Preview([]byte(tt.line), w); got != tt.want {
				t.Errorf("Preview(%s) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

// Preview takes any committed line: it never panics, and what it returns is
// one line of at most width runes.
func FuzzPreview(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"bash","arguments":{"command":"ls"}}]}}`,
		`{"type":"message","message":{"role":"user","content":"a\nb"}}`,
		`{"type":"custom_message","content":[{"type":"text","text":"x"}]}`,
		`{"type":"metadata","key":"k","value":[1,{"a":null}]}`,
		`[]`, `null`, `{"type":"label"}`,
	} {
		f.Add([]byte(s), 20)
	}
	f.Fuzz(func(t *testing.T, line []byte, width int) {
		width = width%200 + 1
		if width < 1 {
			width += 200
		}
		p := archive.Preview(line, width)
		if n := utf8.RuneCountInString(p); n > width {
			t.Errorf("Preview(%q, %d) = %q: %d runes", line, width, p, n)
		}
		if strings.ContainsAny(p, "\n\r") {
			t.Errorf("Preview(%q) = %q spans lines", line, p)
		}
	})
}
