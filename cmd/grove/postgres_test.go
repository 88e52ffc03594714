package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/iox"
	"github.com/grove-sessions/grove/internal/pgtest"
)

// Many groves at once on one PostgreSQL index (SPEC §10): writers of
// different sources in parallel, writers of one source one after the other, readers that never wait for a writer, a writer killed
// mid-run, grove watch, and the errors a user meets. Every grove here is a
// real process (the test binary run as grove, see TestMain) on a real
// server (internal/pgtest).

// pgPatience bounds every wait on a grove process in these tests:
// generous, so that a loaded machine does not fail them.
const pgPatience = 3 * time.Minute

// pgProc is a grove process started by startGrove.
type pgProc struct {
	cmd            *exec.Cmd
	stdout, stderr *iox.LockedBuffer
	exited         chan struct{}
	err            error // Wait's, once exited is closed
}

// groveEnv is the environment of a grove process in these tests: its own
// HOME and no GROVE_* variable from outside.
func groveEnv(tb testing.TB) []string {
	home := tb.TempDir()
	return append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "xdg"),
		"GROVE_ROOT=", "GROVE_DB=", "GROVE_SOURCE=")
}

// startGrove starts `grove ARGS...`; it is killed when the test ends if it
// still runs.
func startGrove(tb testing.TB, args ...string) *pgProc {
	tb.Helper()
	grove, err := exec.LookPath("grove")
	if err != nil {
		tb.Fatalf("grove is not on PATH (TestMain installs the test binary as grove): %v", err)
	}
	p := &pgProc{cmd: exec.Command(grove, args...), stdout: &iox.LockedBuffer{}, stderr: &iox.LockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = groveEnv(tb), p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	tb.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// running reports whether p has not exited yet.
func (p *pgProc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// wait waits for p to exit and returns its exit status; it fails the test
// after pgPatience.
func (p *pgProc) wait(tb testing.TB) int {
	tb.Helper()
	select {
	case <-p.exited:
	case <-time.After(pgPatience):
		tb.Fatalf("grove %s still runs after %v\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), pgPatience, p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// mustSucceed waits for p and fails the test unless it exited 0.
func (p *pgProc) mustSucceed(tb testing.TB) string {
	tb.Helper()
	if code := p.wait(tb); code != 0 {
		tb.Fatalf("grove %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), code, p.stdout, p.stderr)
	}
	return p.stdout.String()
}

// groveOut runs grove ARGS... to the end and returns its stdout, failing
// the test unless it exits 0.
func groveOut(tb testing.TB, args ...string) string {
	tb.Helper()
	return startGrove(tb, args...).mustSucceed(tb)
}

// pgCorpus generates a corpus of pi and plain sessions of about size bytes
// (seed picks the bytes) in a new directory and returns it.
func pgCorpus(tb testing.TB, seed, size, big int64) string {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), fmt.Sprintf("corpus-%d", seed))
	o := corpusgen.DefaultOptions()
	o.Seed, o.Size, o.BigSession = seed, size, big
	o.ImageRate, o.DamageRate = 0, 0
	o.MaxSession = 256 << 10
	if _, err := corpusgen.Generate(context.Background(), root, o); err != nil {
		tb.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "manifest.json")); err != nil {
		tb.Fatal(err)
	}
	return root
}

// countSessions is the number of *.jsonl files below root.
func countSessions(tb testing.TB, root string) int {
	tb.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			n++
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// pgAnswers is what readers answer from the index at url: sessions,
// leaves, searches for queries, and the path to every leaf, each as the
// JSON document grove printed, by the command line that printed it.
// maxPaths above 0 bounds the paths asked.
func pgAnswers(tb testing.TB, url string, queries []string, maxPaths int) map[string]string {
	tb.Helper()
	out := map[string]string{}
	run := func(args ...string) string {
		s := groveOut(tb, append([]string{"--db", url, "--json"}, args...)...)
		// Search's "open" commands name the database: the one thing that differs.
		out[strings.Join(args, " ")] = strings.ReplaceAll(s, shellQuote(url), "DB")
		return s
	}
	var sessions struct {
		Sessions []struct{ Source string } `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(run("sessions")), &sessions); err != nil {
		tb.Fatal(err)
	}
	if len(sessions.Sessions) == 0 {
		tb.Fatalf("the index at %s holds no session", url)
	}
	var leaves struct {
		Leaves []struct{ ID, Path string } `json:"leaves"`
	}
	if err := json.Unmarshal([]byte(run("leaves")), &leaves); err != nil {
		tb.Fatal(err)
	}
	for _, q := range queries {
		run("search", "--limit", "50", q)
	}
	// One grove per leaf: every leaf, or with maxPaths above 0 that many
	// spread over the list (a process each is slow on two cores).
	step := 1
	if maxPaths > 0 && len(leaves.Leaves) > maxPaths {
		step = (len(leaves.Leaves) + maxPaths - 1) / maxPaths
	}
	for i := 0; i < len(leaves.Leaves); i += step {
		l := leaves.Leaves[i]
		run("path", l.Path, l.ID)
	}
	return out
}

// compareAnswers fails the test for each answer that differs.
func compareAnswers(tb testing.TB, what string, got, want map[string]string) {
	tb.Helper()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	bad := 0
	for _, k := range keys {
		if g, ok := got[k]; !ok {
			tb.Errorf("%s: grove %s was not asked (a leaf is missing)", what, k)
			bad++
		} else if g != want[k] {
			tb.Errorf("%s: grove --json %s differs:\n got %.600s\nwant %.600s", what, k, g, want[k])
			bad++
		}
		if bad > 5 {
			tb.Fatalf("%s: more differences left out", what)
		}
	}
	if len(got) != len(want) {
		tb.Errorf("%s: %d answers, want %d", what, len(got), len(want))
	}
}

// watchPassLine is the line grove watch writes after each pass.
var watchPassLine = regexp.MustCompile(`(?m)^\S+ \d+ files?: `)

var pgQueries = []string{"error", "the", `"file system"`, "test*", "数据", "read OR write"}

// TestPostgres_FourSourcesAtOnce runs four `grove index` processes at
// once, four --source names and four roots, into one database: each
// succeeds, each source holds exactly its root's sessions, and every
// reader answers as from a database the same four runs filled one after
// the other.
func TestPostgres_FourSourcesAtOnce(t *testing.T) {
	roots := make([]string, 4)
	for i := range roots {
		roots[i] = pgCorpus(t, int64(i+1), 1_500_000, 0)
	}
	concurrent, sequential := pgtest.DB(t), pgtest.DB(t)
	procs := make([]*pgProc, 4)
	start := time.Now()
	for i, r := range roots {
		procs[i] = startGrove(t, "--db", concurrent, "--json", "index", "--source", fmt.Sprintf("laptop-%d", i), "--root", r)
	}
	for i, p := range procs {
		p.mustSucceed(t)
		if strings.Contains(p.stderr.String(), "another grove is writing") {
			t.Errorf("writer %d waited for another source's writer:\n%s", i, p.stderr)
		}
	}
	t.Logf("four writers at once: %v", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	for i, r := range roots {
		groveOut(t, "--db", sequential, "--json", "index", "--source", fmt.Sprintf("laptop-%d", i), "--root", r)
	}
	t.Logf("four writers one after the other: %v", time.Since(start).Round(time.Millisecond))

	var doc struct {
		Sessions []struct{ Source, Path string } `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(groveOut(t, "--db", concurrent, "--json", "sessions")), &doc); err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, s := range doc.Sessions {
		per[s.Source]++
		if i := rootOf(roots, s.Path); i < 0 {
			t.Errorf("session %s (source %s) is in no root", s.Path, s.Source)
		} else if s.Source != fmt.Sprintf("laptop-%d", i) {
			t.Errorf("session %s of root %d has source %s", s.Path, i, s.Source)
		}
	}
	for i, r := range roots {
		if got, want := per[fmt.Sprintf("laptop-%d", i)], countSessions(t, r); got != want {
			t.Errorf("source laptop-%d holds %d sessions, its root %d files", i, got, want)
		}
	}
	compareAnswers(t, "four at once vs one after the other", pgAnswers(t, concurrent, pgQueries, 0), pgAnswers(t, sequential, pgQueries, 0))
	if out := groveOut(t, "--db", concurrent, "--json", "verify"); !strings.Contains(out, `"mismatches":0,`) {
		t.Errorf("grove verify after four writers at once:\n%s", out)
	}
}

// rootOf is the index in roots of the root that holds path, or -1.
func rootOf(roots []string, path string) int {
	for i, r := range roots {
		if strings.HasPrefix(path, r+string(filepath.Separator)) {
			return i
		}
	}
	return -1
}

// writerXact waits until the grove process pid has a transaction open
// that has written (backend_xid set) and returns that transaction's id;
// "" when p ended first.
func writerXact(tb testing.TB, db *sqlx.DB, p *pgProc) string {
	tb.Helper()
	pattern := fmt.Sprintf("grove pid %d on %%", p.cmd.Process.Pid)
	for deadline := time.Now().Add(pgPatience); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !p.running() {
			return ""
		}
		var xid []string
		if err := db.Select(&xid, "SELECT backend_xid::text FROM pg_stat_activity WHERE application_name LIKE $1 AND backend_xid IS NOT NULL", pattern); err != nil {
			tb.Fatal(err)
		}
		if len(xid) > 0 {
			return xid[0]
		}
	}
	tb.Fatalf("grove pid %d opened no writing transaction in %v", p.cmd.Process.Pid, pgPatience)
	return ""
}

// stillInXact reports whether the grove process p still has transaction
// xid open.
func stillInXact(tb testing.TB, db *sqlx.DB, p *pgProc, xid string) bool {
	tb.Helper()
	var n int
	if err := db.Get(&n, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE $1 AND backend_xid::text = $2",
		fmt.Sprintf("grove pid %d on %%", p.cmd.Process.Pid), xid); err != nil {
		tb.Fatal(err)
	}
	return n > 0
}

// holdsSourceLock reports whether some connection holds a source's
// advisory lock (index/server.go: class "grsc").
func holdsSourceLock(tb testing.TB, db *sqlx.DB) bool {
	tb.Helper()
	var n int
	if err := db.Get(&n, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::oid AND granted", 0x67727363); err != nil {
		tb.Fatal(err)
	}
	return n > 0
}

// TestPostgres_OneSourceWritersWaitReadersDoNot starts a writer on a big
// corpus and, while it holds its source's lock and has a transaction
// open: readers (search, sessions, path, leaves) answer before that
// transaction ends; a second `grove index` and a `grove watch` of the
// same source say that another grove, named by its pid, is writing and
// wait; both then do their work once the first is done.
func TestPostgres_OneSourceWritersWaitReadersDoNot(t *testing.T) {
	small := pgCorpus(t, 7, 400_000, 0)
	big := pgCorpus(t, 8, 16_000_000, 24_000_000)
	other := pgCorpus(t, 9, 300_000, 0)
	url := pgtest.DB(t)
	db := pgtest.Open(t, url)
	// What the readers read: another source's sessions, already indexed.
	groveOut(t, "--db", url, "index", "--source", "ci", "--root", small)
	var leaves struct {
		Leaves []struct{ ID, Path string } `json:"leaves"`
	}
	if err := json.Unmarshal([]byte(groveOut(t, "--db", url, "--json", "leaves")), &leaves); err != nil || len(leaves.Leaves) == 0 {
		t.Fatalf("leaves: %v %v", err, leaves)
	}

	first := startGrove(t, "--db", url, "--json", "index", "--source", "laptop", "--root", big)
	xid := writerXact(t, db, first)
	if xid == "" {
		t.Fatalf("the first writer finished before a reader could run; make the corpus bigger\n%s", first.stderr)
	}
	if !holdsSourceLock(t, db) {
		t.Fatal("the first writer is in a transaction and holds no source lock")
	}
	// Readers, one after the other, each a process of its own.
	readers := [][]string{
		{"search", "error"},
		{"sessions"},
		{"leaves"},
		{"path", leaves.Leaves[0].Path, leaves.Leaves[0].ID},
		{"search", "--session", leaves.Leaves[0].Path, "the"},
	}
	for _, r := range readers {
		out := groveOut(t, append([]string{"--db", url, "--json"}, r...)...)
		if !json.Valid([]byte(out)) {
			t.Errorf("grove %s: not JSON: %s", strings.Join(r, " "), out)
		}
	}
	if !first.running() || !stillInXact(t, db, first, xid) {
		t.Fatalf("the writer's transaction %s ended before the readers finished: they waited for it (or the corpus is too small to show that they did not)", xid)
	}

	// A second writer and a watch of the same source wait for the first.
	second := startGrove(t, "--db", url, "--json", "index", "--source", "laptop", "--root", other)
	watch := startGrove(t, "--db", url, "watch", "--source", "laptop", "--root", other, "--debounce", "100ms")
	holder := fmt.Sprintf("another grove is writing this index (grove pid %d on ", first.cmd.Process.Pid)
	for _, p := range []*pgProc{second, watch} {
		for deadline := time.Now().Add(pgPatience); !strings.Contains(p.stderr.String(), holder); time.Sleep(20 * time.Millisecond) {
			if !p.running() || time.Now().After(deadline) {
				t.Fatalf("grove %s does not say that pid %d is writing (exited: %v)\nstdout:\n%s\nstderr:\n%s",
					strings.Join(p.cmd.Args[1:], " "), first.cmd.Process.Pid, !p.running(), p.stdout, p.stderr)
			}
		}
	}
	if !first.running() {
		t.Log("the first writer ended while the second one started: the order below is still checked")
	}
	first.mustSucceed(t)
	second.mustSucceed(t)
	if !strings.Contains(second.stdout.String(), `"indexed"`) {
		t.Errorf("second writer: %s", second.stdout)
	}
	// The watch gets the lock in its turn and makes its first pass.
	for deadline := time.Now().Add(pgPatience); !watchPassLine.MatchString(watch.stdout.String()); time.Sleep(50 * time.Millisecond) {
		if !watch.running() || time.Now().After(deadline) {
			t.Fatalf("grove watch made no pass after the writers\nstdout:\n%s\nstderr:\n%s", watch.stdout, watch.stderr)
		}
	}
	watch.cmd.Process.Signal(os.Interrupt)
	if code := watch.wait(t); code != 0 {
		t.Errorf("grove watch after SIGINT: exit %d\n%s", code, watch.stderr)
	}
	var doc struct {
		Sessions []struct{ Source string } `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(groveOut(t, "--db", url, "--json", "sessions")), &doc); err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, s := range doc.Sessions {
		per[s.Source]++
	}
	if want := countSessions(t, small); per["ci"] != want {
		t.Errorf("source ci holds %d sessions, want %d", per["ci"], want)
	}
	// laptop's last writer was the second index (and the watch) of other.
	if want := countSessions(t, big) + countSessions(t, other); per["laptop"] != want {
		t.Errorf("source laptop holds %d sessions, want %d (both roots it was given)", per["laptop"], want)
	}
}

// checkStoredBytes checks, in the database at url, that every session's
// stored bytes are pieces contiguous from offset 0 that end at its
// committed_len (SPEC §10: only committed lines, append-only), and that
// no piece belongs to no session.
