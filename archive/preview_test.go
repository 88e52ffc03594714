package archive_test

import (
	"testing"

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
