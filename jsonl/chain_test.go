package jsonl_test

// The shared chain of entries and the child processes of the crash and
// lock tests.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/grove-sessions/grove/jsonl"
)

// The chain: entry i has id chainID(i) and is the child of entry i-1, so a
// file holding entries 0..n-1 in order is the only correct content. About
// one entry in five is 100 KB to 2 MB long, so that a kill can land in the
// middle of a write(2).

func chainID(i int) string { return fmt.Sprintf("e%06d", i) }

// chainLine is entry i as one compact JSON line in dialect d; tag names the
// process that wrote it (lock_test.go) and is part of the content.
func chainLine(d jsonl.Dialect, i int, tag string) []byte {
	size := chainSize(i)
	var content bytes.Buffer
	fmt.Fprintf(&content, "%s#%d ", tag, i)
	const block = `entry text \u00e9 é \"quoted\" \\n 0123456789 `
	for content.Len() < size {
		content.WriteString(block)
	}
	parent := "null"
	if i > 0 {
		parent = strconv.Quote(chainID(i - 1))
	}
	var b bytes.Buffer
	switch {
	case d == jsonl.Plain && i%4 == 3:
		fmt.Fprintf(&b, `{"id":%q,"parentId":%s,"timestamp":%d,"type":"metadata","key":"note","value":"%s"}`,
			chainID(i), parent, 1767225600000+i, content.Bytes())
	case d == jsonl.Plain:
		fmt.Fprintf(&b, `{"id":%q,"parentId":%s,"timestamp":%d,"type":"message","message":{"role":"user","content":"%s"}}`,
			chainID(i), parent, 1767225600000+i, content.Bytes())
	case i%4 == 3:
		fmt.Fprintf(&b, `{"type":"custom","id":%q,"parentId":%s,"timestamp":"2026-03-03T08:00:00.000Z","customType":"grove-crash","data":{"text":"%s"}}`,
			chainID(i), parent, content.Bytes())
	default:
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-03-03T08:00:00.000Z","message":{"role":"user","content":"%s"}}`,
			chainID(i), parent, content.Bytes())
	}
	return b.Bytes()
}

// chainSize is the approximate length of entry i's content, in bytes.
func chainSize(i int) int {
	h := splitmix(uint64(i))
	if h%5 == 0 {
		return 100<<10 + int(h>>8%(1900<<10))
	}
	return 40 + int(h%300)
}

const chainHeader = `{"type":"session","version":3,"id":"crash-0001","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/w"}`

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// newChainFile creates an empty session file of dialect d through a writer
// (a pi file gets its header) and returns its path.
func newChainFile(t *testing.T, dir, name string, d jsonl.Dialect) string {
	t.Helper()
	path := filepath.Join(dir, name)
	w, err := jsonl.OpenWriter(path, jsonl.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d == jsonl.Pi {
		if err := w.Append(json.RawMessage(chainHeader)); err != nil {
			t.Fatalf("Append(header) = %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkChain reads path strictly and checks that it holds the chain's
// entries 0..n-1 in order, on consecutive lines, without a blank line; from
// entry from on, each line must be byte for byte chainLine(d, i, tags[i]).
// It returns the entries and the read's result.
func checkChain(t *testing.T, path string, d jsonl.Dialect, from int, tag func(i int) string) ([]jsonl.Entry, *jsonl.Result) {
	t.Helper()
	entries, res, err := jsonl.ReadFile(path, jsonl.Strict)
	if err != nil {
		t.Fatalf("ReadFile(%s, Strict) = %v, want no bad line", filepath.Base(path), err)
	}
	if res.Dialect != d {
		t.Fatalf("ReadFile(%s): dialect %s, want %s", filepath.Base(path), res.Dialect, d)
	}
	first := 1
	if d == jsonl.Pi {
		if res.Header == nil || string(res.Header.Raw) != chainHeader {
			t.Fatalf("ReadFile(%s): header %v, want %s", filepath.Base(path), res.Header, chainHeader)
		}
		first = 2
	}
	for i, e := range entries {
		if e.ID != chainID(i) || e.Line != first+i || e.Root != (i == 0) || (i > 0 && e.ParentID != chainID(i-1)) {
			t.Fatalf("entry %d: id %q parent %q root %v on line %d, want id %q on line %d, child of the previous entry",
				i, e.ID, e.ParentID, e.Root, e.Line, chainID(i), first+i)
		}
		if i >= from {
			if want := chainLine(d, i, tag(i)); !bytes.Equal(e.Raw, want) {
				t.Fatalf("entry %s: line of %d bytes differs from the %d bytes appended", e.ID, len(e.Raw), len(want))
			}
		}
	}
	return entries, res
}

// child is a running child process whose stdout lines arrive on lines
// (closed at EOF).
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr bytes.Buffer
}

func startChild(t *testing.T, mode string, env ...string) *child {
	t.Helper()
	c := &child{lines: make(chan string, 1<<14)}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	c.cmd.Env = append(append(os.Environ(), childEnv+"="+mode), env...)
	c.cmd.Stderr = &c.stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a test that failed half-way leaves no child behind
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			c.wait()
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

func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill child: %v", err)
	}
}

// next returns the child's next stdout line, failing the test when none
// comes within d or the child ended.
func (c *child) next(t *testing.T, d time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.cmd.Wait()
			t.Fatalf("child ended (%v) without the line expected; stderr:\n%s", c.cmd.ProcessState, c.stderr.String())
		}
		return l
	case <-time.After(d):
		c.kill(t)
		t.Fatalf("no line from the child within %v; stderr:\n%s", d, c.stderr.String())
	}
	return ""
}

// wait reads the rest of stdout, reaps the child and returns the lines read.
func (c *child) wait() ([]string, error) {
	var rest []string
	for l := range c.lines {
		rest = append(rest, l)
	}
	return rest, c.cmd.Wait()
}
