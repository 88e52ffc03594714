package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

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
