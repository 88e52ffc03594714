package flock_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/flock"
)

// The children are this test binary: with childEnv set, TestMain runs the
// child instead of the tests.
const childEnv = "GROVE_FLOCK_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		if err := runChild(mode, os.Getenv("GROVE_FLOCK_FILE")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runChild runs one child on path. "hold" opens it, tries the lock and
// prints "locked" or "busy"; on stdin "unlock" it releases the lock and
// prints "unlocked", on "lock" it tries again as at the start, on "exit"
// or EOF it returns (the lock goes with the process). "read" prints the
// length and SHA-256 of the whole file, read through its own open.
func runChild(mode, path string) error {
	switch mode {
	case "read":
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Printf("read %d %x\n", len(b), sha256.Sum256(b))
		return nil
	case "hold":
	default:
		return fmt.Errorf("unknown child mode %q", mode)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	try := func() error {
		err := flock.TryLock(f)
		switch {
		case err == nil:
			fmt.Println("locked")
		case errors.Is(err, flock.ErrLocked):
			fmt.Println("busy")
		default:
			return fmt.Errorf("TryLock = %v, want nil or ErrLocked", err)
		}
		return nil
	}
	if err := try(); err != nil {
		return err
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "unlock":
			if err := flock.Unlock(f); err != nil {
				return err
			}
			fmt.Println("unlocked")
		case "lock":
			if err := try(); err != nil {
				return err
			}
		case "exit":
			return nil
		}
	}
	return nil
}

type child struct {
	cmd    *exec.Cmd
	stdin  *os.File
	lines  chan string
	stderr bytes.Buffer
}

func startChild(t *testing.T, mode, path string) *child {
	t.Helper()
	c := &child{lines: make(chan string, 16)}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	c.cmd.Env = append(os.Environ(), childEnv+"="+mode, "GROVE_FLOCK_FILE="+path)
	c.cmd.Stderr = &c.stderr
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stdin, c.stdin = r, w
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { // a test that failed half-way leaves no child behind
		c.stdin.Close()
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
	})
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	return c
}

// next is the child's next stdout line; the test fails when none comes.
func (c *child) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.cmd.Wait()
			t.Fatalf("child ended without a line; stderr:\n%s", c.stderr.String())
		}
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("no line from the child within 30s")
	}
	return ""
}

func (c *child) want(t *testing.T, cmd, want string) {
	t.Helper()
	if cmd != "" {
		if _, err := fmt.Fprintln(c.stdin, cmd); err != nil {
			t.Fatalf("send %q to child: %v", cmd, err)
		}
	}
	if got := c.next(t); got != want {
		t.Fatalf("child after %q printed %q, want %q; stderr:\n%s", cmd, got, want, c.stderr.String())
	}
}

func mustFile(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func wantLocked(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, flock.ErrLocked) {
		t.Fatalf("%s = %v, want ErrLocked (%v)", what, err, flock.ErrLocked)
	}
}

func wantNil(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s = %v, want nil", what, err)
	}
}

// The lock belongs to the open file: two opens of one file in one process
// conflict, and the second gets the lock once the first unlocks or closes.
func TestTryLock_TwoOpens(t *testing.T) {
	path := mustFile(t, "{}\n")
	a, b := mustOpen(t, path), mustOpen(t, path)
	wantNil(t, "TryLock(a)", flock.TryLock(a))
	wantLocked(t, "TryLock(b) while a holds it", flock.TryLock(b))
	wantLocked(t, "TryLock(b) again while a holds it", flock.TryLock(b))
	wantNil(t, "Unlock(a)", flock.Unlock(a))
	wantNil(t, "TryLock(b) after Unlock(a)", flock.TryLock(b))
	wantLocked(t, "TryLock(a) while b holds it", flock.TryLock(a))
	b.Close()
	wantNil(t, "TryLock(a) after b closed", flock.TryLock(a))
}

// Across processes: while a child holds the lock, this process and a
// second child are refused; once the child unlocks, this process gets it
// and the child is refused; a child killed while holding it leaves it free.
func TestTryLock_AcrossProcesses(t *testing.T) {
	path := mustFile(t, "{}\n")
	f := mustOpen(t, path)
	c := startChild(t, "hold", path)
	c.want(t, "", "locked")
	wantLocked(t, "TryLock while a child holds it", flock.TryLock(f))
	startChild(t, "hold", path).want(t, "", "busy")

	c.want(t, "unlock", "unlocked")
	wantNil(t, "TryLock after the child unlocked", flock.TryLock(f))
	c.want(t, "lock", "busy")
	wantNil(t, "Unlock", flock.Unlock(f))
	c.want(t, "lock", "locked")

	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for err := flock.TryLock(f); err != nil; err = flock.TryLock(f) {
		if !errors.Is(err, flock.ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("TryLock after the holder was killed = %v, want nil", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Readers never wait for the lock (SPEC §5), and the lock never covers the
// file's data: while it is held, another process reads the whole file,
// this process reads it through another open, and an append through
// another open (as the writer's own appends may be) lands. On Windows,
// where byte-range locks are mandatory, a lock on the file's bytes would
// fail these reads and the append.
func TestTryLock_ReadersDoNotWait(t *testing.T) {
	data := strings.Repeat(`{"type":"message","text":"entry"}`+"\n", 4096)
	path := mustFile(t, data)
	f := mustOpen(t, path)
	wantNil(t, "TryLock", flock.TryLock(f))

	startChild(t, "read", path).want(t, "", fmt.Sprintf("read %d %x", len(data), sha256.Sum256([]byte(data))))
	got, err := os.ReadFile(path)
	if err != nil || string(got) != data {
		t.Fatalf("ReadFile while locked = %d bytes, %v; want the %d bytes written", len(got), err, len(data))
	}

	more := `{"type":"message","text":"appended"}` + "\n"
	app, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if _, err := app.WriteString(more); err != nil {
		t.Fatalf("append through another open while locked = %v", err)
	}
	got, err = os.ReadFile(path)
	if err != nil || string(got) != data+more {
		t.Fatalf("ReadFile after the append = %d bytes, %v; want %d", len(got), err, len(data)+len(more))
	}
	startChild(t, "read", path).want(t, "", fmt.Sprintf("read %d %x", len(data)+len(more), sha256.Sum256([]byte(data+more))))
}
