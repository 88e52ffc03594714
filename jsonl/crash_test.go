package jsonl_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// Crash tests with real processes (SPEC §5): the test binary re-executes
// itself as a child that appends to a session file and is killed with
// SIGKILL at a random moment; the parent then checks what is on disk.
// They are slow, so a plain `go test` skips them (testutil.SkipSlow):
//
//	GROVE_TEST_SLOW=1 go test ./jsonl -run Crash -v
//	GROVE_TEST_SLOW=1 go test ./jsonl -run Crash -crash.rounds 500 -crash.seed 7

var (
	crashRounds = flag.Int("crash.rounds", 50, "rounds of TestWriter_Crash (TestWriter_CrashFsync runs a fifth of them, at least 10)")
	crashSeed   = flag.Uint64("crash.seed", 0, "seed of the crash tests' kill moments; 0 picks one from the clock (it is logged)")
)

// childEnv names the environment variable that turns the test binary into a
// child process; its value is the child's mode (see runChild).
const childEnv = "GROVE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// runChild is the child side of the process tests. It reads its arguments
// from GROVE_CRASH_* variables, talks on stdout one line at a time (each
// line is one write(2), so it has left the process when the call returns)
// and returns the exit status. Modes:
//
//	append  open FILE and print "open"; append chain entries START,
//	        START+1, ... up to LIMIT of them, printing "w ID" when the
//	        append is issued and ID once it returned; then wait to be
//	        killed (crash_test.go)
//	lock    hold a writer and append until told "close" (lock_test.go)
//	turns   on "turn K", open, append K entries, close (lock_test.go)
func runChild(mode string) int {
	go func() { // never outlive a parent that died without killing us
		time.Sleep(2 * time.Minute)
		os.Exit(3)
	}()
	a := childArgs{
		path:    os.Getenv("GROVE_CRASH_FILE"),
		dialect: jsonl.Dialect(os.Getenv("GROVE_CRASH_DIALECT")),
		tag:     os.Getenv("GROVE_CRASH_TAG"),
		opts:    jsonl.WriterOptions{Fsync: os.Getenv("GROVE_CRASH_FSYNC") == "1"},
	}
	if os.Getenv("GROVE_CRASH_SLOW") == "1" {
		a.opts.WrapFile = func(f jsonl.File) jsonl.File { return slowFile{f} }
	}
	a.start, _ = strconv.Atoi(os.Getenv("GROVE_CRASH_START"))
	a.limit, _ = strconv.Atoi(os.Getenv("GROVE_CRASH_LIMIT"))
	var err error
	switch mode {
	case "append":
		err = childAppend(a)
	case "lock":
		err = childLock(a)
	case "turns":
		err = childTurns(a)
	default:
		err = fmt.Errorf("unknown child mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	return 0
}

type childArgs struct {
	path         string
	dialect      jsonl.Dialect
	tag          string
	start, limit int
	opts         jsonl.WriterOptions
}

func childAppend(a childArgs) error {
	w, err := jsonl.OpenWriter(a.path, a.opts)
	if err != nil {
		return err
	}
	if st := w.State(); st != jsonl.Ready {
		return fmt.Errorf("OpenWriter: state %s, want ready", st)
	}
	fmt.Println("open")
	for i := a.start; i < a.start+a.limit; i++ {
		// AppendAsync returns once the line is validated and serialized;
		// "w" tells the parent that the write is about to happen.
		p := w.AppendAsync(json.RawMessage(chainLine(a.dialect, i, a.tag)))
		fmt.Println("w", chainID(i))
		if err := p.Wait(); err != nil {
			return fmt.Errorf("Append(%s): %w", chainID(i), err)
		}
		fmt.Println(chainID(i))
	}
	time.Sleep(time.Minute) // the parent kills us
	return nil
}

// slowFile is a slow disk: it writes in chunks of 64 KB with a pause after
// each, so that a kill lands in the middle of a long line's write most of
// the time instead of now and then.
type slowFile struct{ jsonl.File }

func (f slowFile) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.File.Write(b[n:min(n+64<<10, len(b))])
		n += m
		if err != nil {
			return n, err
		}
		time.Sleep(100 * time.Microsecond)
	}
	return n, nil
}

// crashFile is one session file of a crash test, continued across rounds.
type crashFile struct {
	path      string
	dialect   jsonl.Dialect
	n         int      // entries in the file
	committed int64    // bytes in the file after the last round
	sum       [32]byte // sha256 of those bytes
}

// crashStats counts what the rounds met, so a run shows which paths it took.
type crashStats struct {
	rounds, torn, extra, killedEarly, acks, files int
	plans                                         map[string]int // rounds per kind of kill
	tornBy                                        map[string]int // torn last lines per kind of kill
}

func TestWriter_Crash(t *testing.T) {
	testutil.SkipSlow(t, "./jsonl", "-crash.rounds kills of a writing process")
	runCrash(t, *crashRounds, jsonl.WriterOptions{})
}

func TestWriter_CrashFsync(t *testing.T) {
	testutil.SkipSlow(t, "./jsonl", "-crash.rounds/5 kills of a writing process that fsyncs")
	runCrash(t, max(*crashRounds/5, 10), jsonl.WriterOptions{Fsync: true})
}

// crashMaxFile is the size at which a round starts a new file instead of
// continuing the old one, in bytes: every round reads the file four times
// (parent, child, writer after the kill, repair), and that should stay cheap.
const crashMaxFile = 10 << 20

// crashLimit is how many appends a child makes before it waits to be
// killed; it bounds how much a round adds to the file.
const crashLimit = 16

// killPlan is when a round kills its child with SIGKILL. Kinds:
//
//	acks        right after n acks (0: at once)
//	write       delay after the child issued its n-th long line (≥ 100 KB)
//	slow-write  the same on a slow disk (slowFile)
//	open        delay after the child's OpenWriter returned
//	start       delay after the child process started
type killPlan struct {
	kind  string
	n     int
	delay time.Duration
}

func (k killPlan) String() string {
	switch k.kind {
	case "acks":
		return fmt.Sprintf("kill after %d acks", k.n)
	case "write", "slow-write":
		return fmt.Sprintf("%s: kill %v after large line #%d was issued", k.kind, k.delay, k.n)
	}
	return fmt.Sprintf("kill %v after %s", k.delay, k.kind)
}

func newKillPlan(rng *rand.Rand) killPlan {
	switch rng.IntN(9) {
	case 0, 1:
		return killPlan{kind: "acks", n: rng.IntN(8)}
	case 2, 3: // aim at the write(2) of a long line: it takes about 0.3 ms per MB
		return killPlan{kind: "write", n: 1 + rng.IntN(2), delay: time.Duration(rng.Int64N(int64(1500 * time.Microsecond)))}
	case 4: // a slow disk: a long line takes milliseconds, in many write(2)s
		return killPlan{kind: "slow-write", n: 1 + rng.IntN(2), delay: time.Duration(rng.Int64N(int64(3 * time.Millisecond)))}
	case 5, 6, 7:
		return killPlan{kind: "open", delay: time.Duration(rng.Int64N(int64(80 * time.Millisecond)))}
	}
	return killPlan{kind: "start", delay: time.Duration(rng.Int64N(int64(120 * time.Millisecond)))}
}

func runCrash(t *testing.T, rounds int, opts jsonl.WriterOptions) {
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -crash.seed %d), %d rounds, fsync %v", seed, seed, rounds, opts.Fsync)
	rng := rand.New(rand.NewPCG(seed, 0x67726f7665))
	dir := t.TempDir()
	st := crashStats{plans: map[string]int{}, tornBy: map[string]int{}}
	newFile := func(d jsonl.Dialect) *crashFile {
		st.files++
		f := &crashFile{path: newChainFile(t, dir, fmt.Sprintf("%s-%d.jsonl", d, st.files), d), dialect: d}
		f.committed, f.sum = prefixSum(t, f.path, -1)
		return f
	}
	files := []*crashFile{newFile(jsonl.Plain), newFile(jsonl.Pi)}
	start := time.Now()
	for r := 0; r < rounds; r++ {
		f := files[r%len(files)]
		if f.committed > crashMaxFile {
			os.Remove(f.path)
			f = newFile(f.dialect)
			files[r%len(files)] = f
		}
		crashRound(t, r, f, opts, newKillPlan(rng), &st)
	}
	for _, f := range files {
		checkChain(t, f.path, f.dialect, 0, func(int) string { return "" })
	}
	t.Logf("%d rounds in %v: %d left a torn last line (repaired), %d had one entry written but not acked, %d kills before any ack, %d acks, %d files",
		st.rounds, time.Since(start).Round(time.Millisecond), st.torn, st.extra, st.killedEarly, st.acks, st.files)
	t.Logf("kills: %v; torn lines by kind of kill: %v", st.plans, st.tornBy)
}

// crashRound runs one child on f, kills it as plan says, checks the file
// and appends the next entry of the chain through a new writer.
func crashRound(t *testing.T, r int, f *crashFile, opts jsonl.WriterOptions, plan killPlan, st *crashStats) {
	c := startChild(t, "append", "GROVE_CRASH_FILE="+f.path, "GROVE_CRASH_DIALECT="+string(f.dialect),
		"GROVE_CRASH_START="+strconv.Itoa(f.n), "GROVE_CRASH_LIMIT="+strconv.Itoa(crashLimit), "GROVE_CRASH_FSYNC="+env01(opts.Fsync),
		"GROVE_CRASH_SLOW="+env01(plan.kind == "slow-write"))
	var acks []string
	killed := false
	kill := func() {
		if !killed {
			c.kill(t)
			killed = true
		}
	}
	var timer <-chan time.Time
	arm := func(d time.Duration) {
		if timer == nil {
			timer = time.After(d)
		}
	}
	switch {
	case plan.kind == "start":
		arm(plan.delay)
	case plan.kind == "acks" && plan.n == 0:
		kill()
	}
	large := 0
	safety := time.After(30 * time.Second)
read:
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				break read
			}
			switch id, issued := strings.CutPrefix(l, "w "); {
			case l == "open":
				if plan.kind == "open" {
					arm(plan.delay)
				}
			case issued:
				if want := chainID(f.n + len(acks)); id != want {
					kill()
					t.Fatalf("round %d: the child issued %q, want %q", r, id, want)
				}
				if chainSize(f.n+len(acks)) >= 100<<10 {
					if large++; (plan.kind == "write" || plan.kind == "slow-write") && large == plan.n {
						arm(plan.delay)
					}
				}
			default:
				acks = append(acks, l)
				if (plan.kind == "acks" && len(acks) == plan.n) || len(acks) == crashLimit {
					kill()
				}
			}
		case <-timer:
			kill()
		case <-safety:
			kill()
			t.Fatalf("round %d: the child was not killed within 30 s", r)
		}
	}
	err := c.cmd.Wait()
	ws, _ := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("round %d: child ended by itself (%v), not by SIGKILL; stderr:\n%s", r, err, c.stderr.String())
	}
	st.plans[plan.kind]++
	st.rounds++
	st.acks += len(acks)
	if len(acks) == 0 {
		st.killedEarly++
	}

	// (a) the bytes of the last round are a prefix of the file, its
	// committed prefix reads strictly and the new lines are the chain's.
	where := fmt.Sprintf("round %d (%s, %v)", r, filepath.Base(f.path), plan)
	if size, sum := prefixSum(t, f.path, f.committed); size < f.committed || sum != f.sum {
		t.Fatalf("%s: the file's first %d bytes changed (now %d bytes): an append rewrote committed bytes", where, f.committed, size)
	}
	entries, res := checkChain(t, f.path, f.dialect, f.n, func(int) string { return "" })

	// (b) every acked id is there, in order; at most one more entry.
	for k, id := range acks {
		if want := chainID(f.n + k); id != want {
			t.Fatalf("%s: ack %d is %q, want %q", where, k, id, want)
		}
	}
	switch got, want := len(entries), f.n+len(acks); {
	case got < want:
		t.Fatalf("%s: the file holds %d entries, but %d were acked (%v): an acked append was lost", where, got, want, acks)
	case got > want+1:
		t.Fatalf("%s: the file holds %d entries, want %d acked plus at most one in flight", where, got, want)
	case got == want+1:
		st.extra++
	}

	// (c) a writer opens ready, or needs-repair when the last line is torn;
	// repair then makes it ready.
	w, err := jsonl.OpenWriter(f.path, opts)
	if err != nil {
		t.Fatalf("%s: OpenWriter after the kill = %v", where, err)
	}
	switch state := w.State(); {
	case state == jsonl.Ready && !res.HasTail():
	case state == jsonl.NeedsRepair && res.HasTail():
		st.torn++
		st.tornBy[plan.kind]++
		w = repairTorn(t, where, f, w, res, opts)
	default:
		w.Close()
		t.Fatalf("%s: OpenWriter state %s, but ReadFile found a tail: %v", where, state, res.HasTail())
	}
	if got, err := w.Entries(context.Background()); err != nil || len(got) != len(entries) {
		t.Fatalf("%s: the new writer's Entries = %d entries, %v; want the %d read", where, len(got), err, len(entries))
	}

	// (d) the next entry of the chain appends, and the file goes on; the
	// next round reads it strictly.
	n := len(entries)
	line := chainLine(f.dialect, n, "")
	before, _ := prefixSum(t, f.path, 0)
	if err := w.Append(json.RawMessage(line)); err != nil {
		t.Fatalf("%s: Append(%s) after the crash = %v", where, chainID(n), err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: Close = %v", where, err)
	}
	if after, _ := prefixSum(t, f.path, 0); after != before+int64(len(line)+1) {
		t.Fatalf("%s: Append(%s) of %d bytes took the file from %d to %d bytes", where, chainID(n), len(line)+1, before, after)
	}
	f.n = n + 1
	f.committed, f.sum = prefixSum(t, f.path, -1)
}

func env01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// repairTorn checks the needs-repair writer w, closes it, repairs the file
// and returns a ready writer on it.
func repairTorn(t *testing.T, where string, f *crashFile, w *jsonl.Writer, res *jsonl.Result, opts jsonl.WriterOptions) *jsonl.Writer {
	before, _ := prefixSum(t, f.path, -1)
	err := w.Append(json.RawMessage(chainLine(f.dialect, 999999, "")))
	if errs.CodeOf(err) != errs.CodeNeedsRepair {
		t.Fatalf("%s: Append on a needs-repair writer = %v, want needs_repair", where, err)
	}
	if after, _ := prefixSum(t, f.path, -1); after != before {
		t.Fatalf("%s: a refused append changed the file from %d to %d bytes", where, before, after)
	}
	w.Close()
	plan, err := jsonl.Repair(f.path, false)
	if err != nil {
		t.Fatalf("%s: Repair = %v", where, err)
	}
	if plan.TruncateAt != res.Committed || plan.RemovedBytes != before-res.Committed {
		t.Fatalf("%s: Repair truncated at %d removing %d bytes, want %d and %d", where, plan.TruncateAt, plan.RemovedBytes, res.Committed, before-res.Committed)
	}
	if fi, err := os.Stat(plan.Backup); err != nil || fi.Size() != before-res.Committed {
		t.Fatalf("%s: backup %s: %v, want the %d bytes of the tail", where, plan.Backup, err, before-res.Committed)
	}
	os.Remove(plan.Backup)
	w, err = jsonl.OpenWriter(f.path, opts)
	if err != nil {
		t.Fatalf("%s: OpenWriter after Repair = %v", where, err)
	}
	if state := w.State(); state != jsonl.Ready {
		t.Fatalf("%s: OpenWriter after Repair: state %s, want ready", where, state)
	}
	return w
}

// prefixSum returns the size of the file at path and the sha256 of its
// first n bytes (all of them when n < 0).
func prefixSum(t *testing.T, path string, n int64) (int64, [32]byte) {
	t.Helper()
	fh, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, sha256.Sum256(nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if n < 0 || n > fi.Size() {
		n = fi.Size()
	}
	h := sha256.New()
	if _, err := io.CopyN(h, fh, n); err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return fi.Size(), sum
}

// A failed append fails only itself, and a new file takes the dialect of
// its first line (SPEC §5): an append that was refused, or that failed at
// commit, wrote nothing and must not decide an empty file's dialect. Found
// while writing the crash tests (at 438c7b7 prepare decided the dialect at
// call time and never undid it) and fixed in c6380f5; this is its
// regression test, and belongs beside TestWriter_DialectFromFirstLine.
func TestWriter_FailedFirstAppendLeavesDialectOpen(t *testing.T) {
	plainRoot := string(chainLine(jsonl.Plain, 0, ""))
	tests := []struct{ name, first, next string }{
		{"invalid plain entry, then a pi header", `{"id":"x","parentId":null,"type":"message"}`, chainHeader},
		{"plain entry whose parent is missing, then a pi header", `{"id":"x","parentId":"nope","timestamp":1,"type":"metadata","key":"k","value":1}`, chainHeader},
		{"pi header without id, then a plain entry", `{"type":"session","version":3,"timestamp":"2026-03-03T08:00:00.000Z","cwd":"/w"}`, plainRoot},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			w, err := jsonl.OpenWriter(path, jsonl.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Append(json.RawMessage(tc.first)); err == nil {
				t.Fatalf("Append(%s) = nil, want an error", tc.first)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
				t.Fatalf("after a failed append the file is %v (%v), want empty", fi.Size(), err)
			}
			if err := w.Append(json.RawMessage(tc.next)); err != nil {
				t.Errorf("Append(%.40s...) to the still empty file = %v, want nil", tc.next, err)
			}
		})
	}
}
