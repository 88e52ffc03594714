package main

import (
	"context"
	"io"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/grove-sessions/grove/internal/visible"
)

// output is a command's stdout. It stops at Ctrl-C: once the context is
// cancelled, a write fails (interrupted), so a long export or tree stops
// instead of running to its end. On a terminal, and not for --json, it also
// shows control characters from session files as escapes (\x1b, \r, ...)
// instead of sending them: a session name or message holding ESC [2J must
// not clear the user's screen. Redirected output keeps every byte. One-line
// views (table cells, tree lines, search results) escape their values
// with cell whatever the output is (docs/output.md "Control characters").
type output struct {
	ctx      context.Context
	g        *env
	w        io.Writer
	terminal bool
}

func newOutput(ctx context.Context, g *env, w io.Writer) *output {
	f, ok := w.(*os.File)
	return &output{ctx: ctx, g: g, w: w, terminal: ok && isatty.IsTerminal(f.Fd())}
}

// colour reports whether matches may be shown in colour: stdout is a
// terminal (its file descriptor, looked at once by newOutput) that is not
// TERM=dumb (which shows escape sequences as text), the output is not
// --json, and NO_COLOR (no-color.org) is unset or empty.
func (o *output) colour() bool {
	return o.terminal && !o.g.json && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// raw is o without the terminal's control-character escapes, still
// stopping at Ctrl-C: for the colour escape sequences grove writes itself
// around text already escaped with cell.
func (o *output) raw() io.Writer { return rawOutput{o} }

type rawOutput struct{ o *output }

func (r rawOutput) Write(p []byte) (int, error) {
	if r.o.ctx.Err() != nil {
		return 0, interruptedError{msg: "interrupted: output stopped"}
	}
	return r.o.w.Write(p)
}

func (o *output) Write(p []byte) (int, error) {
	if o.ctx.Err() != nil {
		return 0, interruptedError{msg: "interrupted: output stopped"}
	}
	if !o.terminal || o.g.json {
		return o.w.Write(p)
	}
	if _, err := o.w.Write([]byte(visible.Escape(string(p), "\n\t"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cell is a value for one table cell or one line: every control character
// escaped, tabs and line feeds included, so it cannot break the table.
func cell(s string) string { return visible.Escape(s, "") }
