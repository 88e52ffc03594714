package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// TestSuite_Smoke runs the whole harness on a 3 MB corpus, once per
// figure, so that it never rots: every figure must be measured, or
// skipped only because rg or python3 is missing.
func TestSuite_Smoke(t *testing.T) {
	if testing.Short() {
		t.Skip("the harness smoke test builds grove and a corpus; skipped with -short")
	}
	work := t.TempDir()
	var stdout, stderr bytes.Buffer
	app := newApp(&stdout, &stderr)
	args := []string{"grove-bench", "--size", "3MB", "--runs", "1", "--search-runs", "3", "--work", work, "--json"}
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
			if !strings.Contains(f.Skipped, "rg is not installed") && !strings.Contains(f.Skipped, "python3") {
				t.Errorf("%s/%s skipped: %s", f.Section, f.Name, f.Skipped)
			}
		case f.Runs == 0 || f.Median <= 0 || f.Min > f.Median || f.Median > f.Max:
			t.Errorf("%s/%s = %+v: want runs and min <= median <= max, median > 0", f.Section, f.Name, f)
		}
	}
	for _, s := range []string{"index", "refresh", "search in-process", "search whole-process", "path", "verify", "baseline"} {
		if sections[s] == 0 {
			t.Errorf("no %q figures", s)
		}
	}
	if res.Corpus.Bytes < 2_500_000 || res.Corpus.Entries == 0 || len(res.Targets) < 3 {
		t.Errorf("corpus %+v, %d targets", res.Corpus, len(res.Targets))
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
	if strings.Contains(stdout.String(), "[index]") || strings.Contains(stdout.String(), "[verify]") {
		t.Errorf("--only search measured more:\n%s", stdout.String())
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
	if !errors.As(err, &u) || !strings.Contains(err.Error(), `no section "nope"`) {
		t.Errorf("--only nope: %v, want a usage error", err)
	}
}
