package jsonl_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// One writer per file across processes (SPEC §5): a second writer gets a
// locked error instead of interleaving lines, and readers never wait. The
// children are the test binary (TestMain in crash_test.go).

// childLock opens a writer (or prints "error CODE PATH" and returns), prints
// "open", then appends the chain from the file's end, printing "ack ID"
// after each append, up to LIMIT entries. On stdin "close" it stops, closes
// the writer and prints "closed"; on "exit" or EOF it returns.
func childLock(a childArgs) error {
	w, err := jsonl.OpenWriter(a.path, a.opts)
	if err != nil {
		var je *errs.Error
		if !errors.As(err, &je) {
			return err
		}
		fmt.Printf("error %s %s\n", je.Code, je.Path)
		return nil
	}
	es, err := w.Entries(context.Background())
	if err != nil {
		return err
	}
	fmt.Println("open")
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := len(es); i < len(es)+a.limit; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if err := w.Append(json.RawMessage(chainLine(a.dialect, i, a.tag))); err != nil {
				done <- fmt.Errorf("Append(%s): %w", chainID(i), err)
				return
			}
			fmt.Println("ack", chainID(i))
			time.Sleep(2 * time.Millisecond)
		}
		<-stop
		done <- nil
	}()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "close":
			close(stop)
			if err := <-done; err != nil {
				return err
			}
			if err := w.Close(); err != nil {
				return err
			}
			fmt.Println("closed")
		case "exit":
			return nil
		}
	}
	return nil
}

// childTurns takes turns: on stdin "turn K" it opens a writer (retrying
// every 200 µs while another process holds the file), appends K entries of
// the chain from the file's end printing "ack ID" after each, closes the
// writer and prints "done RETRIES". On "exit" or EOF it returns.
func childTurns(a childArgs) error {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || f[0] != "turn" {
			return nil
		}
		k, _ := strconv.Atoi(f[1])
		retries := 0
		w, err := jsonl.OpenWriter(a.path, a.opts)
		for errs.CodeOf(err) == errs.CodeLocked && retries < 100000 {
			retries++
			time.Sleep(200 * time.Microsecond)
			w, err = jsonl.OpenWriter(a.path, a.opts)
		}
		if err != nil {
			return err
		}
		if st := w.State(); st != jsonl.Ready {
			return fmt.Errorf("OpenWriter: state %s, want ready", st)
		}
		es, err := w.Entries(context.Background())
		if err != nil {
			return err
		}
		for i := len(es); i < len(es)+k; i++ {
			if err := w.Append(json.RawMessage(chainLine(a.dialect, i, a.tag))); err != nil {
				return fmt.Errorf("Append(%s): %w", chainID(i), err)
			}
			fmt.Println("ack", chainID(i))
		}
		if err := w.Close(); err != nil {
			return err
		}
		fmt.Println("done", retries)
	}
	return nil
}

// acker collects "ack ID" lines from several children: which process wrote
// which entry.
type acker struct {
	t    *testing.T
	tags map[string]string
}

func (a *acker) ack(tag, line string) bool {
	a.t.Helper()
	id, ok := strings.CutPrefix(line, "ack ")
	if !ok {
		return false
	}
	if prev, dup := a.tags[id]; dup {
		a.t.Fatalf("%s acked %s, which %s acked before: two writers appended the same entry", tag, id, prev)
	}
	a.tags[id] = tag
	return true
}

func (a *acker) tag(i int) string { return a.tags[chainID(i)] }

// untilLine reads c's lines, recording acks for tag, until one that is not
// an ack; it returns that line.
func (a *acker) untilLine(c *child, tag string) string {
	a.t.Helper()
	for {
		if l := c.next(a.t, 30*time.Second); !a.ack(tag, l) {
			return l
		}
	}
}

// acks reads c's lines until n more acks came (any other line fails).
func (a *acker) acks(c *child, tag string, n int) {
	a.t.Helper()
	for range n {
		if l := c.next(a.t, 30*time.Second); !a.ack(tag, l) {
			a.t.Fatalf("%s: got %q, want an ack", tag, l)
		}
	}
}

func send(t *testing.T, c *child, cmd string) {
	t.Helper()
	if _, err := fmt.Fprintln(c.stdin, cmd); err != nil {
		t.Fatalf("send %q to child: %v", cmd, err)
	}
}

func exitChild(t *testing.T, c *child, tag string) {
	t.Helper()
	send(t, c, "exit")
	rest, err := c.wait()
	if err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", tag, err, c.stderr.String())
	}
	if len(rest) > 0 {
		t.Fatalf("%s: unexpected output at exit: %q", tag, rest)
	}
}

// lockEnv is the environment of a lock or turns child on path.
func lockEnv(path string, d jsonl.Dialect, tag string, limit int) []string {
	return []string{"GROVE_CRASH_FILE=" + path, "GROVE_CRASH_DIALECT=" + string(d),
		"GROVE_CRASH_TAG=" + tag, "GROVE_CRASH_LIMIT=" + strconv.Itoa(limit)}
}

// While process A holds the writer and keeps appending, process B and this
// process get locked errors naming the file, and ReadFile does not wait.
// Once A closes its writer (A still running), process C opens and appends.
func TestWriter_LockAcrossProcesses(t *testing.T) {
	path := newChainFile(t, t.TempDir(), "locked.jsonl", jsonl.Plain)
	ak := &acker{t: t, tags: map[string]string{}}

	a := startChild(t, "lock", lockEnv(path, jsonl.Plain, "A", 400)...)
	if l := a.next(t, 30*time.Second); l != "open" {
		t.Fatalf("A: first line %q, want open; stderr:\n%s", l, a.stderr.String())
	}
	ak.acks(a, "A", 3)

	// B, a second process.
	b := startChild(t, "lock", lockEnv(path, jsonl.Plain, "B", 400)...)
	if l, want := b.next(t, 30*time.Second), "error locked "+path; l != want {
		t.Fatalf("B: OpenWriter while A writes printed %q, want %q", l, want)
	}
	if rest, err := b.wait(); err != nil || len(rest) > 0 {
		t.Fatalf("B: exit %v, output %q; stderr:\n%s", err, rest, b.stderr.String())
	}

	// This process: the error itself.
	w, err := jsonl.OpenWriter(path, jsonl.WriterOptions{})
	var je *errs.Error
	if !errors.As(err, &je) || je.Code != errs.CodeLocked || je.Path != path || !strings.Contains(err.Error(), path) {
		if w != nil {
			w.Close()
		}
		t.Fatalf("OpenWriter while A writes = %v (%T), want a locked *errs.Error naming %s", err, err, path)
	}
	if !errors.Is(err, errs.New(errs.CodeLocked, "")) {
		t.Errorf("errors.Is(%v, locked) = false", err)
	}

	// A keeps appending, and a reader does not wait for it.
	ak.acks(a, "A", 5)
	acked := len(ak.tags)
	readWithin(t, path, 5*time.Second)
	entries, res := checkChain(t, path, jsonl.Plain, 0, func(i int) string {
		return "A" // the only writer so far; its last entry may not be acked yet
	})
	if len(entries) < acked {
		t.Fatalf("ReadFile while A writes: %d entries, but %d were acked", len(entries), acked)
	}
	t.Logf("read %d entries (%d bytes, tail %v) while A held the writer", len(entries), res.Size, res.HasTail())
	ak.acks(a, "A", 3)

	// A closes its writer but keeps running: C can open.
	send(t, a, "close")
	if l := ak.untilLine(a, "A"); l != "closed" {
		t.Fatalf("A: got %q, want closed", l)
	}
	c := startChild(t, "lock", lockEnv(path, jsonl.Plain, "C", 400)...)
	if l := c.next(t, 30*time.Second); l != "open" {
		t.Fatalf("C: first line %q after A closed, want open; stderr:\n%s", l, c.stderr.String())
	}
	ak.acks(c, "C", 5)
	send(t, c, "close")
	if l := ak.untilLine(c, "C"); l != "closed" {
		t.Fatalf("C: got %q, want closed", l)
	}
	exitChild(t, c, "C")
	exitChild(t, a, "A")

	entries, res = checkChain(t, path, jsonl.Plain, 0, ak.tag)
	if len(entries) != len(ak.tags) || res.HasTail() {
		t.Fatalf("after A and C: %d entries (tail %v), want the %d acked", len(entries), res.HasTail(), len(ak.tags))
	}
	w, err = jsonl.OpenWriter(path, jsonl.WriterOptions{})
	if err != nil {
		t.Fatalf("OpenWriter after A and C closed = %v", err)
	}
	if st := w.State(); st != jsonl.Ready {
		t.Errorf("OpenWriter after A and C closed: state %s, want ready", st)
	}
	w.Close()
}

// readWithin fails the test when ReadFile(path, Strict) does not return
// within d: a reader must never wait for a writer.
func readWithin(t *testing.T, path string, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		jsonl.ReadFile(path, jsonl.Strict)
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("ReadFile(%s) did not return within %v while another process held the writer", filepath.Base(path), d)
	}
}

// Two processes take turns on one pi file: first one after the other, then
// both asked at once so that one waits on the lock. No line is interleaved,
// lost or doubled, and every turn's entries are contiguous.
func TestWriter_LockTurns(t *testing.T) {
	const perTurn = 4
	path := newChainFile(t, t.TempDir(), "turns.jsonl", jsonl.Pi)
	ak := &acker{t: t, tags: map[string]string{}}
	p := startChild(t, "turns", lockEnv(path, jsonl.Pi, "P", 0)...)
	q := startChild(t, "turns", lockEnv(path, jsonl.Pi, "Q", 0)...)
	turn := fmt.Sprintf("turn %d", perTurn)
	retries := func(c *child, tag string) int {
		t.Helper()
		l := ak.untilLine(c, tag)
		n, err := strconv.Atoi(strings.TrimPrefix(l, "done "))
		if !strings.HasPrefix(l, "done ") || err != nil {
			t.Fatalf("%s: got %q, want done", tag, l)
		}
		return n
	}
	for k := range 8 {
		c, tag := p, "P"
		if k%2 == 1 {
			c, tag = q, "Q"
		}
		send(t, c, turn)
		if n := retries(c, tag); n != 0 {
			t.Fatalf("%s waited %d times for the lock on its own turn", tag, n)
		}
	}
	waited := 0
	for range 6 {
		send(t, p, turn)
		send(t, q, turn)
		waited += retries(p, "P") + retries(q, "Q")
	}
	exitChild(t, p, "P")
	exitChild(t, q, "Q")
	t.Logf("%d entries; in the contended turns the second process retried the lock %d times", len(ak.tags), waited)

	entries, res := checkChain(t, path, jsonl.Pi, 0, ak.tag)
	if want := (8 + 2*6) * perTurn; len(entries) != want || len(ak.tags) != want || res.HasTail() {
		t.Fatalf("%d entries (tail %v), %d acked; want %d of both", len(entries), res.HasTail(), len(ak.tags), want)
	}
	for i := 0; i < len(entries); i += perTurn {
		for j := i + 1; j < i+perTurn; j++ {
			if ak.tag(j) != ak.tag(i) {
				t.Fatalf("entries %d..%d are one turn, but %s was written by %s and %s by %s",
					i, i+perTurn-1, chainID(i), ak.tag(i), chainID(j), ak.tag(j))
			}
		}
	}
}

// stallFile stalls the first write after arm, after writing half of it,
// until release is closed: a writer caught in the middle of a long line.
type stallFile struct {
	jsonl.File
	armed   atomic.Bool
	stalled chan struct{}
	release chan struct{}
}

func (f *stallFile) Write(b []byte) (int, error) {
	if !f.armed.CompareAndSwap(true, false) {
		return f.File.Write(b)
	}
	n, err := f.File.Write(b[:len(b)/2])
	close(f.stalled)
	<-f.release
	if err != nil {
		return n, err
	}
	m, err := f.File.Write(b[n:])
	return n + m, err
}

// A reader never waits for a writer (SPEC §5): with a writer holding the
// lock in the middle of a write, ReadFile returns at once with the
// committed prefix and the half-written line as a tail; a second
// OpenWriter in the same process gets locked at once.
func TestWriter_LockReaderDoesNotWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	sf := &stallFile{stalled: make(chan struct{}), release: make(chan struct{})}
	w, err := jsonl.OpenWriter(path, jsonl.WriterOptions{WrapFile: func(f jsonl.File) jsonl.File { sf.File = f; return sf }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 3 {
		if err := w.Append(json.RawMessage(chainLine(jsonl.Plain, i, ""))); err != nil {
			t.Fatalf("Append(%s) = %v", chainID(i), err)
		}
	}
	sf.armed.Store(true)
	pending := w.AppendAsync(json.RawMessage(chainLine(jsonl.Plain, 3, "")))
	select {
	case <-sf.stalled:
	case <-time.After(10 * time.Second):
		t.Fatal("the append never reached the file")
	}
	var once sync.Once
	release := func() { once.Do(func() { close(sf.release) }) }
	defer release()

	type read struct {
		entries []jsonl.Entry
		res     *jsonl.Result
		err     error
		locked  error
	}
	got := make(chan read, 1)
	go func() {
		var r read
		r.entries, r.res, r.err = jsonl.ReadFile(path, jsonl.Strict)
		if w2, err := jsonl.OpenWriter(path, jsonl.WriterOptions{}); err == nil {
			w2.Close()
		} else {
			r.locked = err
		}
		got <- r
	}()
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("ReadFile during a write = %v", r.err)
		}
		if len(r.entries) != 3 || !r.res.HasTail() {
			t.Errorf("ReadFile during a write: %d entries, tail %v; want the 3 committed and the half line as a tail", len(r.entries), r.res.HasTail())
		}
		if errs.CodeOf(r.locked) != errs.CodeLocked {
			t.Errorf("second OpenWriter during a write = %v, want locked", r.locked)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile waited for the writer")
	}
	release()
	if err := pending.Wait(); err != nil {
		t.Fatalf("the stalled append = %v", err)
	}
	entries, res, err := jsonl.ReadFile(path, jsonl.Strict)
	if err != nil || len(entries) != 4 || res.HasTail() {
		t.Fatalf("ReadFile after the write = %d entries, tail %v, %v; want 4, none, nil", len(entries), res != nil && res.HasTail(), err)
	}
}
