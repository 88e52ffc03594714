package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

func TestEscapeControls(t *testing.T) {
	tests := []struct{ in, keep, want string }{
		{"plain text, 中文 ✓", "", "plain text, 中文 ✓"},
		{"\x1b[2Jclear", "", `\x1b[2Jclear`},
		{"a\nb\tc\rd", "", `a\nb\tc\rd`},
		{"a\nb\tc\rd", "\n\t", "a\nb\tc\\rd"},
		{"bell\a del\x7f", "", `bell\x07 del\x7f`},
		{"c1 \u009b31m", "", `c1 \x9b31m`},
		{"bidi \u202eevil\u2066", "", `bidi \u202eevil\u2066`},
	}
	for _, tt := range tests {
		if got := escapeControls(tt.in, tt.keep); got != tt.want {
			t.Errorf("escapeControls(%q, %q) = %q, want %q", tt.in, tt.keep, got, tt.want)
		}
	}
}

// Once Ctrl-C cancelled the context, output refuses every write, so a
// command stops writing and exits as interrupted; redirected output (no
// terminal) keeps control characters byte for byte.
func TestOutput_StopsAtInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var buf bytes.Buffer
	o := newOutput(ctx, &env{}, &buf)
	if _, err := o.Write([]byte("first \x1b[31m\n")); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err := o.Write([]byte("second\n"))
	var ie interruptedError
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) {
		t.Errorf("Write after cancel: err = %v, want interrupted", err)
	}
	if got := buf.String(); got != "first \x1b[31m\n" {
		t.Errorf("output = %q, want only the first write, bytes as given", got)
	}
}

// Names and labels are clipped to terminal columns, a wide CJK character
// counting two, so a Chinese name takes the room a Latin one does.
func TestClipWidth(t *testing.T) {
	for _, tt := range []struct {
		in   string
		cols int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijklmnop", 10, "abcdefghi…"},
		{"认证模块的重构计划", 10, "认证模块…"},
	} {
		got := clipWidth(tt.in, tt.cols)
		if got != tt.want || displayWidth(got) > tt.cols {
			t.Errorf("clipWidth(%q, %d) = %q (%d columns), want %q", tt.in, tt.cols, got, displayWidth(got), tt.want)
		}
	}
}
