package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/testutil"
)

// allowedSkips are the reasons a figure of the smoke test may be skipped
// for: a tool that is missing (rg, python3, Chromium), the shared corpus
// the serve step shows, or a grove without incremental refresh or watch.
var allowedSkips = []string{"rg is not installed", "python3", notMeasuredBytesRead, notMeasuredWatch, "no Chromium", "no corpus", "no official MCP client"}

// mayBeZero are units whose figures may be exactly 0 (an idle process).
var mayBeZero = map[string]bool{"% of a core": true, "switches/s": true, "differing lines": true}

// TestSuite_Smoke runs the whole harness on a 3 MB corpus, once per
// figure, and the steps with corpora of their own on tiny inputs, so that
// it never rots: every figure must be measured, or skipped only because rg or
// python3 is missing or grove lacks a feature (allowedSkips).
func TestSuite_Smoke(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove-bench", "builds grove and a corpus and runs every figure")
	work := t.TempDir()
	var stdout, stderr bytes.Buffer
	app := newApp(&stdout, &stderr)
	args := []string{"grove-bench", "--size", "3MB", "--runs", "1", "--search-runs", "3", "--work", work, "--json",
		"--refresh-files", "200", "--append-sizes", "1MB,4MB", "--big-mem-size", "8MB", "--long-line-size", "4MB", "--watch-idle", "1s",
		"--dialect-size", "1MB", "--dialect-append-lines", "3",
		"--index-sizes", "1MB,3MB", "--shape-entries", "300", "--export-size", "1MB",
		"--serve-size", "64KB", "--serve-runs", "1",
		"--team-sources", "3", "--team-sessions", "10", "--team-writers", "2", "--team-chain", "200"}
	if err := app.RunContext(context.Background(), args); err != nil {
		t.Fatalf("grove-bench %s: %v\n%s", strings.Join(args[1:], " "), err, stderr.String())
	}
	var res Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout.String())
	}
	sections := map[string]int{}
	for _, f := range res.Figures {
		sections[f.Section]++
		switch {
		case f.Skipped != "":
			if !slices.ContainsFunc(allowedSkips, func(r string) bool { return strings.Contains(f.Skipped, r) }) {
				t.Errorf("%s/%s skipped: %s", f.Section, f.Name, f.Skipped)
			}
		case f.Unit == signedMs:
			if f.Runs == 0 || math.IsNaN(f.Median) || math.IsInf(f.Median, 0) {
				t.Errorf("%s/%s = %+v: want a measured, finite difference", f.Section, f.Name, f)
			}
		case f.Runs == 0 || f.Median < 0 || (f.Median == 0 && !mayBeZero[f.Unit]) || f.Min > f.Median || f.Median > f.Max:
			t.Errorf("%s/%s = %+v: want runs and min <= median <= max, median > 0", f.Section, f.Name, f)
		}
	}
	for _, s := range []string{"index", "refresh", "search in-process", "search whole-process", "path", "verify", "baseline",
		"many-files", "watch", "append", "big-mem", "long-line", "dialects", "sizes", "ready", "shapes", "export", "dump", "serve", "mcp"} {
		if sections[s] == 0 {
			t.Errorf("no %q figures", s)
		}
	}
	if res.Corpus.Bytes < 2_500_000 || res.Corpus.Entries == 0 || len(res.Targets) < 3 {
		t.Errorf("corpus %+v, %d targets", res.Corpus, len(res.Targets))
	}
	checkRefreshFigures(t, &res)
	checkScaleFigures(t, &res)
	for _, d := range benchDialects {
		if _, ok := res.Ratios["cold_index_over_pi/"+d]; !ok && d != "pi" {
			t.Errorf("no cold index ratio of %s to pi in %v", d, res.Ratios)
		}
		names := []string{d + ": cold index throughput", d + ": refresh after 3 appended lines"}
		if d == "pi" || d == "plain" {
			names = append(names, d+": Python + C SQLite baseline")
		}
		for _, n := range names {
			if !slices.ContainsFunc(res.Figures, func(f Figure) bool { return f.Section == "dialects" && f.Name == n }) {
				t.Errorf("no dialects figure %q", n)
			}
		}
	}
	// A second run reuses the corpus and the index, measures only search,
	// and prints the table.
	stdout.Reset()
	args = []string{"grove-bench", "--size", "3MB", "--runs", "1", "--search-runs", "1", "--work", work, "--grove", filepath.Join(work, "grove"), "--only", "search"}
	if err := newApp(&stdout, &stderr).RunContext(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FIGURE", "[search in-process]", "TARGETS", "corpus "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "corpus: reusing") || !strings.Contains(stderr.String(), "reusing "+filepath.Join(work, "index.db")) {
		t.Errorf("second run did not reuse the corpus and the index:\n%s", stderr.String())
	}
	if strings.Contains(stdout.String(), "[index]") || strings.Contains(stdout.String(), "[verify]") || strings.Contains(stdout.String(), "[many-files]") {
		t.Errorf("--only search measured more:\n%s", stdout.String())
	}
	// A third measures only append: the main corpus and index are neither
	// needed nor touched, the append corpus is reused, and its session is
	// cut back to its generated length after each run.
	stdout.Reset()
	stderr.Reset()
	args = []string{"grove-bench", "--runs", "2", "--work", work, "--grove", filepath.Join(work, "grove"), "--only", "append", "--append-sizes", "1MB"}
	if err := newApp(&stdout, &stderr).RunContext(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	if out := stdout.String(); !strings.Contains(out, "1.0 MB session: refresh after a 1 KB append") || strings.Contains(out, "[many-files]") || strings.Contains(out, "corpus ") {
		t.Errorf("--only append printed:\n%s", out)
	}
	if log := stderr.String(); !strings.Contains(log, "corpus: reusing "+filepath.Join(work, "append-1000000-seed1")) || strings.Contains(log, "corpus-") || strings.Contains(log, "existing index") {
		t.Errorf("--only append did not reuse its corpus, or touched the main one:\n%s", log)
	}
	for _, dir := range []string{"append-1000000-seed1", "append-4000000-seed1"} {
		m, err := corpusgen.ReadManifest(filepath.Join(work, dir))
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(work, dir, filepath.FromSlash(m.Files[0].Path)))
		if err != nil || fi.Size() != m.Files[0].Bytes {
			t.Errorf("%s: after the runs the session is %v bytes (%v); generated %d", dir, fi.Size(), err, m.Files[0].Bytes)
		}
	}
}

// checkRefreshFigures checks that the smoke run has every figure and goal
// of the many-files, append, big-mem, long-line and watch steps: measured,
// or skipped for an allowed reason.
func checkRefreshFigures(t *testing.T, res *Result) {
	t.Helper()
	figs := map[string]Figure{}
	for _, f := range res.Figures {
		figs[f.Section+"/"+f.Name] = f
	}
	for _, name := range []string{
		"many-files/cold index: wall time", "many-files/cold index: throughput", "many-files/cold index: entries",
		"many-files/cold index: peak RSS", "many-files/no-op refresh", "many-files/no-op refresh: peak RSS",
		"append/1.0 MB session: cold index", "append/4.0 MB session: cold index peak RSS",
		"append/1.0 MB session: refresh after a 1 KB append", "append/4.0 MB session: refresh after a 1 KB append",
		"append/4.0 MB session: refresh peak RSS", "append/1.0 MB session: bytes read by the refresh",
		"append/4.0 MB session: bytes read by the refresh",
		"big-mem/cold index: wall time", "big-mem/cold index: throughput", "big-mem/cold index: peak RSS",
		"long-line/index: peak RSS", "long-line/export --format html: peak RSS", "long-line/text-only index: peak RSS", "long-line/text-only export --format html: peak RSS",
		"long-line/search " + testutil.LongLineWord + ": peak RSS",
		"watch/idle CPU",
	} {
		if _, ok := figs[name]; !ok {
			t.Errorf("no figure %s", name)
		}
	}
	if f := figs["many-files/no-op refresh"]; !strings.Contains(f.Note, "200 unchanged files") || res.Ratios["noop_refresh_over_cold_index/many-files"] <= 0 {
		t.Errorf("no-op refresh %+v, ratio %v: want 200 files and a ratio to the cold index", f, res.Ratios)
	}
	if f := figs["watch/idle CPU"]; f.Skipped == "" {
		for _, name := range []string{"watch/idle context switches", "watch/exit after SIGINT", "watch/first pass (index up to date)"} {
			if _, ok := figs[name]; !ok {
				t.Errorf("grove watch measured, but no figure %s", name)
			}
		}
	}
	goals := map[string]Target{}
	for _, g := range res.Targets {
		goals[g.What] = g
		if g.NotMeasured == "" && g.Unit == "" && g.What != "grove watch exit status after SIGINT" {
			t.Errorf("target %+v has no unit", g)
		}
	}
	for _, what := range []string{
		"no-op refresh of 200 unchanged files (goal is for 10,000)",
		"refresh after a 1 KB append to a 1.0 MB session",
		"refresh after a 1 KB append to a 4.0 MB session",
		"bytes read by a refresh after a 1 KB append: 4.0 MB session ÷ 1.0 MB session",
		"cold index of one 8.0 MB session: peak RSS",
		"grove watch CPU while idle",
	} {
		g, ok := goals[what]
		if !ok {
			t.Errorf("no target %q among %d", what, len(res.Targets))
			continue
		}
		if g.NotMeasured != "" && !slices.Contains(allowedSkips, g.NotMeasured) {
			t.Errorf("target %q not measured: %s", what, g.NotMeasured)
		}
		if g.NotMeasured == "" && g.Value <= 0 && what != "grove watch CPU while idle" {
			t.Errorf("target %+v: value not above 0", g)
		}
	}
	if !slices.ContainsFunc(res.Targets, func(g Target) bool { return strings.HasPrefix(g.What, "cold index of the ") }) {
		t.Errorf("no peak RSS target for the main corpus's cold index")
	}
}

// checkScaleFigures checks that the smoke run has the figures and goals
// of the sizes, ready, shapes, path, export and dump steps, and that the
// dumps of the indexes built two ways are equal.
func checkScaleFigures(t *testing.T, res *Result) {
	t.Helper()
	figs := map[string]Figure{}
	for _, f := range res.Figures {
		figs[f.Section+"/"+f.Name] = f
	}
	for _, name := range []string{
		"sizes/1.0 MB: cold index throughput", "sizes/3.0 MB: cold index peak RSS", "sizes/3.0 MB: Python + C SQLite baseline throughput",
		"ready/structure ready: listings answer", "ready/structure ready ÷ full build",
		"shapes/verify comb of 300 entries", "shapes/verify star of 300 entries", "shapes/verify chain of 300 entries",
		"path/CTE path, depth 100000", "path/PathTo in memory, depth 100000",
		"export/1.0 MB session: export --format md: peak RSS", "export/1.0 MB session: export --format html: peak RSS",
		"export/1.0 MB session: export --format jsonl: wall time",
		"dump/dump of one index",
	} {
		if _, ok := figs[name]; !ok {
			t.Errorf("no figure %s", name)
		}
	}
	if f := figs["ready/structure ready ÷ full build"]; f.Max > 1 {
		t.Errorf("structure ready after the build ended: %+v", f)
	}
	goals := map[string]Target{}
	for _, g := range res.Targets {
		goals[g.What] = g
	}
	for _, what := range []string{
		"index dump: cold index by this grove = cold index by the grove measured", "index dump: cold index = cold index then grove rebuild",
	} {
		if g, ok := goals[what]; !ok || !g.Met {
			t.Errorf("target %q: %+v (found %v)", what, g, ok)
		}
	}
	for _, what := range []string{
		"cold index at 3.0 MB vs Python + C SQLite (runs alternated)", "structure ready (listings answer) ÷ the full cold index",
		"in-process path at depth 100,000", "verify of a 300-entry comb", "export of one 1.0 MB session: export --format md (largest run)",
	} {
		if _, ok := goals[what]; !ok && (what[:4] != "cold" || res.Ratios["grove_index_over_baseline/3.0 MB"] > 0) {
			t.Errorf("no target %q", what)
		}
	}
}

func TestAppendEntry(t *testing.T) {
	line := appendEntry("gb000007", "0a1b2c3d", 7)
	var e struct {
		Type, ID, ParentID, Timestamp string
		Message                       struct {
			Role    string
			Content []struct{ Type, Text string }
		}
	}
	if len(line) != appendBytes || !strings.HasSuffix(line, "}\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("appendEntry: %d bytes %q, want %d ending in one LF", len(line), line, appendBytes)
	}
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Fatal(err)
	}
	if e.Type != "message" || e.ID != "gb000007" || e.ParentID != "0a1b2c3d" || e.Timestamp != "2027-01-01T00:00:07.000Z" ||
		e.Message.Role != "user" || len(e.Message.Content) != 1 || e.Message.Content[0].Type != "text" {
		t.Errorf("appendEntry = %+v", e)
	}
}

// fakeWatch writes a shell script that acts as grove for the watch step:
// `watch --help` succeeds; otherwise it says it starts on stderr, prints
// one line after its "first pass", and on SIGINT runs onInt.
func fakeWatch(t *testing.T, onInt string) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	script := "#!" + sh + "\n" +
		`if [ "$1" = watch ]; then exit 0; fi` + "\n" +
		`echo "watching 1 root" >&2` + "\n" +
		`trap '` + onInt + `' INT` + "\n" +
		`echo '{"files":0}'` + "\n" +
		`while :; do sleep 0.05; done` + "\n"
	p := filepath.Join(t.TempDir(), "grove")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMeasureWatch(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, c := range []struct {
		name, onInt string
		code        int
	}{
		{"clean exit", "exit 0", 0},
		{"exit 3", "exit 3", 3},
	} {
		s := &suite{grove: fakeWatch(t, c.onInt), log: io.Discard}
		w, err := s.measureWatch(context.Background(), []string{"--db", "x.db", "watch", "--root", "."}, 300*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if w.exitCode != c.code || w.killed || w.startLine != "watching 1 root" || w.firstPass <= 0 ||
			w.idle < 300*time.Millisecond || w.cpuPercent < 0 || w.cpuPercent > 100 || w.stop <= 0 || w.stop > 5*time.Second {
			t.Errorf("%s: measureWatch = %+v", c.name, *w)
		}
	}
	s := &suite{grove: fakeWatch(t, "exit 0"), log: io.Discard}
	if _, err := s.measureWatch(context.Background(), []string{"watch"}, time.Second); err == nil || !strings.Contains(err.Error(), "exited before its first pass") {
		t.Errorf("a grove that exits at once: %v", err)
	}
}

func TestProcTicks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	n, err := procTicks(os.Getpid())
	if err != nil || n < 0 {
		t.Errorf("procTicks(self) = %d, %v", n, err)
	}
	if procSwitches(os.Getpid()) <= 0 {
		t.Errorf("procSwitches(self) = 0")
	}
	status := "Name:\tx\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n"
	if v, nv := statusField(status, "voluntary_ctxt_switches"), statusField(status, "nonvoluntary_ctxt_switches"); v != 12 || nv != 3 {
		t.Errorf("statusField = %d, %d; want 12, 3", v, nv)
	}
}

// TestRefreshTargets: bytes read is compared between the largest and the
// smallest session; a skipped figure gives a goal that is not measured.
func TestRefreshTargets(t *testing.T) {
	for _, c := range []struct {
		name         string
		small, large Figure
		met          bool
		notMeasured  bool
	}{
		{"flat", Figure{Median: 1100}, Figure{Median: 1300}, true, false},
		{"grows", Figure{Median: 1100}, Figure{Median: 100e6}, false, false},
		{"older grove", Figure{Skipped: notMeasuredBytesRead}, Figure{Skipped: notMeasuredBytesRead}, false, true},
	} {
		s := &suite{cfg: config{AppendSizes: []int64{100e6, 10e6}}, byName: map[string]Figure{}}
		s.byName["append/10.0 MB session: bytes read by the refresh"] = c.small
		s.byName["append/100.0 MB session: bytes read by the refresh"] = c.large
		s.byName["append/100.0 MB session: refresh after a 1 KB append"] = Figure{Median: 12}
		s.targets()
		var got []string
		for _, g := range s.res.Targets {
			got = append(got, g.What)
			if strings.HasPrefix(g.What, "bytes read") {
				if g.Met != c.met || (g.NotMeasured != "") != c.notMeasured || g.What != "bytes read by a refresh after a 1 KB append: 100.0 MB session ÷ 10.0 MB session" {
					t.Errorf("%s: %+v", c.name, g)
				}
			}
		}
		if len(got) != 2 || got[0] != "refresh after a 1 KB append to a 100.0 MB session" {
			t.Errorf("%s: targets %q", c.name, got)
		}
	}
}

func TestQuantile(t *testing.T) {
	f := figureOf("s", "n", "ms", []float64{5, 1, 3, 2, 4, 10, 9, 8, 7, 6})
	if f.Median != 5.5 || f.Min != 1 || f.Max != 10 || f.P99 < 9.9 || f.P99 > 10 {
		t.Errorf("figureOf = %+v", f)
	}
	if g := figureOf("s", "n", "ms", []float64{7}); g.Median != 7 || g.P99 != 0 {
		t.Errorf("one sample: %+v", g)
	}
}

// The harness never empties a directory it did not make, and never shares
// a work directory with another run.
func TestSuite_RefusesForeignDirectories(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	keep := filepath.Join(sessions, "mine.jsonl")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) error {
		var out, errb bytes.Buffer
		return newApp(&out, &errb).RunContext(context.Background(), append([]string{"grove-bench", "--size", "1MB", "--runs", "1", "--search-runs", "1"}, args...))
	}
	if err := run("--work", filepath.Join(dir, "w1"), "--corpus", sessions, "--grove", "/bin/true"); err == nil || !strings.Contains(err.Error(), "refusing to use") {
		t.Errorf("--corpus with someone's sessions: %v, want a refusal", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the harness touched %s: %v", keep, err)
	}
	if err := run("--work", sessions, "--grove", "/bin/true"); err == nil || !strings.Contains(err.Error(), "not made by grove-bench") {
		t.Errorf("--work with someone's files: %v, want a refusal", err)
	}
	// A corpus given with --corpus, made with other options, is not written over.
	other := filepath.Join(dir, "other")
	o := corpusgen.DefaultOptions()
	o.Size = 300_000
	if _, err := corpusgen.Generate(context.Background(), other, o); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(other, "notes.txt")
	if err := os.WriteFile(extra, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run("--work", filepath.Join(dir, "w3"), "--corpus", other, "--grove", "/bin/true"); err == nil || !strings.Contains(err.Error(), "refusing to write over") {
		t.Errorf("--corpus with another corpus: %v, want a refusal", err)
	}
	if _, err := os.Stat(extra); err != nil {
		t.Fatalf("the harness removed %s: %v", extra, err)
	}
	work := filepath.Join(dir, "w2")
	release, err := claimWork(work)
	if err != nil {
		t.Fatal(err)
	}
	if err := run("--work", work, "--grove", "/bin/true"); err == nil || !strings.Contains(err.Error(), "another grove-bench") {
		t.Errorf("a work directory in use: %v, want a refusal", err)
	}
	release()
	var u usageError
	if err := run("10MB"); !errors.As(err, &u) {
		t.Errorf("a stray argument: %v, want a usage error", err)
	}
}

func TestConfig_Only(t *testing.T) {
	var u usageError
	err := newApp(&bytes.Buffer{}, &bytes.Buffer{}).RunContext(context.Background(), []string{"grove-bench", "--only", "search,nope"})
	if !errors.As(err, &u) || !strings.Contains(err.Error(), `no step "nope"`) {
		t.Errorf("--only nope: %v, want a usage error", err)
	}
}
