//go:build linux || darwin

package main

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/grove-sessions/grove/internal/testutil"
)

// A grove command on a user's terminal writes its answer and nothing
// else: it sends the terminal no query (a background colour, OSC 11; a
// cursor position, CSI 6n) that a terminal which never answers (a serial
// line, `script` fed by a pipe, some emulators) would make it wait for,
// and that would swallow what the user typed ahead. The binary runs in a
// session of its own whose controlling terminal is a real
// pseudo-terminal, in the foreground, as under a user's shell; the
// terminal never answers.
func TestCommand_SendsTheTerminalNoQuery(t *testing.T) {
	bin := mustGroveBinary(t)
	db := mustIndexed(t, testutil.Testdata(t, "pi/v3-tree.jsonl"))
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, ptm) // ends with EIO once the last holder of tty is gone
		got <- b.Bytes()
	}()
	for _, args := range [][]string{{"sessions"}, {"search", "login"}, {"leaves"}} {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
		cmd.Env = append(cmd.Environ(), "TERM=xterm-256color", "NO_COLOR=", "COLORFGBG=")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		if err := cmd.Run(); err != nil {
			t.Fatalf("grove %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
	}
	tty.Close()
	out := string(<-got)
	for _, q := range []string{"\x1b]11;?", "\x1b]10;?", "\x1b[6n", "\x1b[c"} {
		if strings.Contains(out, q) {
			t.Errorf("grove sent the terminal the query %q:\n%q", q, head(out))
		}
	}
	if !strings.Contains(out, "login") {
		t.Errorf("the commands' answers did not reach the terminal:\n%q", head(out))
	}
}
