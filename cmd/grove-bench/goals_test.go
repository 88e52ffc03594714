package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// Every goal names a step of the run, a figure, a bound and why, in
// words: never an issue number.
func TestGoals_Table(t *testing.T) {
	issue := regexp.MustCompile(`(?i)\bissue\b|#\d`)
	for i, g := range goals {
		if !slices.Contains(stepNames(), g.Step) || g.Figure == "" || g.Bound == "" || len(g.Why) < 20 || g.check == nil {
			t.Errorf("goal %d %+v: want a step of the run, a figure, a bound, why and a check", i, g)
		}
		if issue.MatchString(g.Figure + " " + g.Why) {
			t.Errorf("goal %q cites an issue: %s", g.Figure, g.Why)
		}
	}
}

// docs/benchmarks.md holds the goals table as `grove-bench goals` prints
// it: the one table, not a copy that drifts.
func TestGoals_InDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeGoals(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, b.Bytes()) {
		t.Errorf("docs/benchmarks.md lacks the goals table as `go run ./cmd/grove-bench goals` prints it:\n%s", b.String())
	}
}

// A figure past its bound is a missed target that says by how much, one
// within it a met one; a figure the run did not measure gives no target.
func TestGoals_MissedAndMet(t *testing.T) {
	run := func(figs map[string]Figure, ratios map[string]float64) map[string]Target {
		s := &suite{byName: figs, m: &corpusgen.Manifest{Bytes: 1e9, Files: make([]corpusgen.File, 789)},
			cfg: config{ShapeEntries: 100000, IndexSizes: []int64{200e6}}}
		s.res.Ratios = ratios
		s.dumps = []dumpComparison{{"a = b", dumpDiff{Equal: ratios["dump"] == 0, Difference: int(ratios["dump"]), Line: 7}}}
		s.targets()
		out := map[string]Target{}
		for _, g := range s.res.Targets {
			out[g.What] = g
		}
		return out
	}
	for _, c := range []struct {
		name   string
		figs   map[string]Figure
		ratios map[string]float64
		what   string
		met    bool
		missed string
	}{
		{"search p50 over", map[string]Figure{"search in-process/all queries": {Median: 12, P99: 30}}, nil, "in-process query latency p50", false, "2.4×"},
		{"search p50 within", map[string]Figure{"search in-process/all queries": {Median: 4, P99: 30}}, nil, "in-process query latency p50", true, ""},
		{"rg slowest query", nil, map[string]float64{"rg_over_grove/rg/phrase": 8.5, "rg_over_grove/rg/prefix": 12}, "whole-process grove search vs rg (slowest query)", false, "1.2× (8.5× instead of 10×)"},
		{"cold index memory", map[string]Figure{"index/cold index: peak RSS": {Max: 153.9}}, nil, "cold index of the 1000.0 MB corpus: peak RSS (largest run)", false, "1.03×"},
		{"sizes memory", map[string]Figure{"sizes/200.0 MB: cold index peak RSS": {Max: 155}}, nil, "cold index at 200.0 MB: peak RSS (largest run)", true, ""},
		{"baseline", nil, map[string]float64{"grove_index_over_baseline": 1.6}, "cold index of the 1000.0 MB corpus vs Python + C SQLite", false, "1.25× (1.60× instead of 2.0×)"},
		{"shape killed", map[string]Figure{"shapes/verify star of 100000 entries": {Median: 300, Note: "did not finish: killed after 5m0s"}}, nil, "verify of a 100000-entry star", false, "at least 30.0× (killed at the timeout)"},
		{"dumps differ", nil, map[string]float64{"dump": 3}, "index dump: a = b", false, "3 lines differ, first at line 7"},
		{"dumps equal", nil, map[string]float64{"dump": 0}, "index dump: a = b", true, ""},
	} {
		got := run(c.figs, c.ratios)
		g, ok := got[c.what]
		if !ok || g.Met != c.met || g.Missed != c.missed || g.Step == "" || g.Why == "" {
			t.Errorf("%s: target %q = %+v (found %v), want met %v, missed by %q", c.name, c.what, g, ok, c.met, c.missed)
		}
	}
	if got := run(nil, nil); len(got) != 1 || !strings.HasPrefix(firstKey(got), "index dump") {
		t.Errorf("no figures: targets %v, want only the dump step's comparison", got)
	}
}

func firstKey(m map[string]Target) string {
	for k := range m {
		return k
	}
	return ""
}
