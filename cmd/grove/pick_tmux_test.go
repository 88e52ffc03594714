package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// grove pick in a real terminal (SPEC §12): tmux runs it in a detached
// session on a server of the test's own; keys go in with send-keys and the
// screen comes back with capture-pane. Typing filters by full text, Enter
// prints the resume command of the selected leaf on stdout (here through
// tee, to a file too) and exits 0; Esc prints nothing and exits 1; with no
// terminal grove pick says so and exits 2. Skips without tmux.
func TestPick_RealTerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH (apt-get install tmux): grove pick's real-terminal test needs it")
	}
	bin := mustGroveBinary(t)
	tmp := t.TempDir()
	ws, roots := filepath.Join(tmp, "ws"), filepath.Join(tmp, "roots")
	for _, d := range []string{ws, roots} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"v3-tree.jsonl", "v2-branches.jsonl", "v1-linear.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pi", name))
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.Replace(data, []byte(`"cwd":"/workspace/demo-app"`), []byte(`"cwd":"`+ws+`"`), 1)
		if err := os.WriteFile(filepath.Join(roots, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(tmp, "index.db")
	if _, err := runGrove(t, db, "index", "--root", roots); err != nil {
		t.Fatal(err)
	}
	sock := "grove-pick-test-" + filepath.Base(tmp)
	t.Cleanup(func() { exec.Command(tmux, "-L", sock, "kill-server").Run() })
	// A stand-in pi for --exec: it records its directory and argv.
	bindir := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bindir, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\n{ pwd; for a in \"$@\"; do echo \"$a\"; done; } > " + filepath.Join(tmp, "pi.log") + "\necho fake pi ran\n"
	if err := os.WriteFile(filepath.Join(bindir, "pi"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(name string, flags ...string) (out string, pane func() string, keys func(...string)) {
		out = filepath.Join(tmp, name+".out")
		// The environment is the command's own: a tmux server keeps the
		// one it started with. HOME and pi's folder are the test's.
		script := fmt.Sprintf("HOME=%s PI_CODING_AGENT_DIR=%s PATH=%s:$PATH GROVE_DB=%s %s pick %s | tee %s; echo \"EXIT=${PIPESTATUS[0]}\"; sleep 600",
			filepath.Join(tmp, "home"), filepath.Join(tmp, "agent"), bindir, db, bin, strings.Join(flags, " "), out)
		cmd := exec.Command(tmux, "-L", sock, "new-session", "-d", "-s", name, "-x", "120", "-y", "30", "bash", "-c", script)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("tmux cannot start a session here: %v: %s", err, b)
		}
		pane = func() string {
			b, err := exec.Command(tmux, "-L", sock, "capture-pane", "-p", "-J", "-t", name).Output()
			if err != nil {
				t.Fatalf("capture-pane: %v", err)
			}
			return string(b)
		}
		keys = func(k ...string) {
			if b, err := exec.Command(tmux, append([]string{"-L", sock, "send-keys", "-t", name}, k...)...).CombinedOutput(); err != nil {
				t.Fatalf("send-keys %q: %v: %s", k, err, b)
			}
		}
		return out, pane, keys
	}
	waitPane := func(pane func() string, want ...string) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			p := pane()
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(p, w)
			}
			if ok {
				return p
			}
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %q; it shows:\n%s", want, p)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	out, pane, keys := run("enter")
	waitPane(pane, "3 sessions of 3 sessions", "Auth refactor (JWT)", "↑↓ move")
	keys("jose")
	waitPane(pane, "1 session of 3 sessions · full text: 1 session", "leaves of 5b7e2c14", "* b7395fc2")
	keys("Enter")
	want := "cd " + ws + " && pi --session " + filepath.Join(roots, "v3-tree.jsonl")
	shown := waitPane(pane, "EXIT=0")
	if !strings.Contains(shown, want) {
		t.Errorf("after Enter the terminal shows\n%s\nwant the line %q", shown, want)
	}
	if strings.Contains(shown, "full text:") {
		t.Errorf("the picker's screen is still there after it ended:\n%s", shown)
	}
	if b, _ := os.ReadFile(out); string(b) != want+"\n" {
		t.Errorf("grove pick printed %q on stdout, want %q", b, want+"\n")
	}

	out, pane, keys = run("esc")
	waitPane(pane, "3 sessions of 3 sessions")
	keys("Escape")
	waitPane(pane, "EXIT=1")
	if b, _ := os.ReadFile(out); len(b) != 0 {
		t.Errorf("Esc printed %q, want nothing", b)
	}

	// --exec: Enter on another leaf forks it into pi's folder (here the
	// test's PI_CODING_AGENT_DIR) and runs pi on the fork, in the
	// workspace.
	_, pane, keys = run("exec", "--exec")
	waitPane(pane, "3 sessions of 3 sessions")
	keys("Auth refactor")
	waitPane(pane, "1 session of 3 sessions", "* b7395fc2")
	keys("Tab", "Down", "Enter")
	waitPane(pane, "fake pi ran", "EXIT=0")
	log, err := os.ReadFile(filepath.Join(tmp, "pi.log"))
	if err != nil {
		t.Fatalf("grove pick --exec did not run pi: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) != 3 || lines[0] != ws || lines[1] != "--session" || !strings.HasPrefix(lines[2], filepath.Join(tmp, "agent", "sessions")+"/") {
		t.Errorf("pi ran as %q, want in %s with --session and a fork in pi's folder", lines, ws)
	}

	// No terminal: said, exit 2.
	cmd := exec.Command(bin, "--db", db, "pick")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = strings.NewReader(""), &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "grove pick needs a terminal") {
		t.Errorf("grove pick without a terminal: %v, %q; want exit 2 saying it needs a terminal", err, stderr.String())
	}
}
