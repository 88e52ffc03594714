package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/grove-sessions/grove/internal/testutil"
)

// searchOn runs `grove search login` with stdout on w and returns what
// the reader r got, read while grove writes so that a terminal's buffer
// never fills.
func searchOn(t *testing.T, db string, w *os.File, r io.Reader) string {
	t.Helper()
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, r) // ends with EIO (a terminal) or EOF (a pipe) once w is closed
		got <- b.Bytes()
	}()
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"grove", "--db", db, "search", "login"}, w, &stderr)
	w.Close()
	out := string(<-got)
	if code != 0 {
		t.Fatalf("grove search login = %d: %s %s", code, out, stderr.String())
	}
	if !strings.Contains(out, "login") {
		t.Fatalf("grove search login found nothing:\n%s", out)
	}
	return out
}

// Search shows its matches in bold red when stdout is a terminal, and only
// then: not in a pipe, not with NO_COLOR set (no-color.org), not on a
// TERM=dumb terminal, and the
// colour's escape sequences reach the terminal as sent, not escaped as a
// session file's control characters are (docs/output.md "Control characters"). The
// terminal is a real pseudo-terminal, as a user's shell has.
func TestSearch_ColourOnlyOnATerminal(t *testing.T) {
	db := mustIndexed(t, testutil.Testdata(t, "pi/v3-tree.jsonl"))
	const bold, reset = "\x1b[1;31m", "\x1b[0m"
	onTerminal := func(t *testing.T) string {
		ptm, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		defer ptm.Close()
		return searchOn(t, db, tty, ptm)
	}

	t.Run("terminal", func(t *testing.T) {
		t.Setenv("NO_COLOR", "")
		t.Setenv("TERM", "xterm-256color")
		out := onTerminal(t)
		if !strings.Contains(out, bold+"login"+reset) && !strings.Contains(out, bold+"Login"+reset) {
			t.Errorf("on a terminal the match is not bold red:\n%q", head(out))
		}
		if strings.Contains(out, `\x1b`) || strings.Contains(out, "[[") {
			t.Errorf("on a terminal the colour is escaped or the [[markers]] are left:\n%q", head(out))
		}
	})
	t.Run("TERM=dumb", func(t *testing.T) {
		t.Setenv("NO_COLOR", "")
		t.Setenv("TERM", "dumb")
		out := onTerminal(t)
		if strings.Contains(out, "\x1b") || !strings.Contains(out, "[[") {
			t.Errorf("TERM=dumb on a terminal: colour shown or the [[markers]] gone:\n%q", head(out))
		}
	})
	t.Run("NO_COLOR", func(t *testing.T) {
		t.Setenv("NO_COLOR", "1")
		t.Setenv("TERM", "xterm-256color")
		out := onTerminal(t)
		if strings.Contains(out, "\x1b") || strings.Contains(out, `\x1b`) {
			t.Errorf("NO_COLOR=1 on a terminal: colour shown:\n%q", head(out))
		}
		if !strings.Contains(out, "[[") {
			t.Errorf("NO_COLOR=1 on a terminal: the [[markers]] are gone:\n%q", head(out))
		}
	})
	t.Run("pipe", func(t *testing.T) {
		t.Setenv("NO_COLOR", "")
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		out := searchOn(t, db, w, r)
		if strings.Contains(out, "\x1b") || !strings.Contains(out, "[[") {
			t.Errorf("in a pipe: want [[markers]] and no colour:\n%q", head(out))
		}
	})
}
