package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// goal is one bound on a figure of the run.
type goal struct {
	Step   string // the step whose figures it reads (step.Name)
	Figure string // the figure, in words
	Bound  string // the bound it must keep
	Why    string // why the bound is there, in words
	// check turns this run's figures into targets: none when the step did
	// not run or its figure is missing, a target that is not measured
	// when the figure was skipped, several for a figure measured at
	// several sizes.
	check func(s *suite, g goal) []Target
}

// The memory bounds, MB.
const (
	// rssBound: neither the main corpus nor one 500 MB session may need
	// more resident memory than this to index.
	rssBound = 150
	// sizesRSSBound is the cold index's bound at each size of the sizes
	// step.
	sizesRSSBound = 160
	// exportRSSBound: an export of one large session.
	exportRSSBound = 100
)

// goals is every goal a run checks, in the order of the steps. A missed
// goal is printed under TARGETS as MISSED; it does not fail the run (a
// loaded machine misses time bounds), but a wrong answer does: the steps
// return an error for it (verify's mismatches, an index that lists fewer
// sessions than were written, PostgreSQL answering otherwise than SQLite).
var goals = []goal{
	{"index", "index size ÷ JSONL size", "≤ 1.0",
		"the index is a cache beside the session files, rebuilt from them at will: it must not cost more disk than they do (the search text is contentless FTS5, no second copy of the text)",
		func(s *suite, g goal) []Target {
			r, ok := s.res.Ratios["index_size_over_jsonl"]
			if !ok {
				return nil
			}
			return g.one("index size ÷ JSONL size", r, "×", r <= 1, fmt.Sprintf("%.2f over", r-1))
		}},
	{"index", "cold index: peak RSS, largest run", fmt.Sprintf("≤ %d MB", rssBound),
		"indexing runs beside the agents on a developer's machine: its memory must stay bounded whatever the corpus's size",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["index/cold index: peak RSS"]
			if !ok {
				return nil
			}
			return g.atMost(fmt.Sprintf("cold index of the %s corpus: peak RSS (largest run)", mb(s.m.Bytes)), f.Max, rssBound, "MB", "%.2f×")
		}},
	{"refresh", "no-op refresh of the main corpus", "≤ 100 ms",
		"grove index runs before the queries an agent makes: with nothing changed it must cost about a process start, not a read of the files (the bound is for 10,000 files; the main corpus has fewer)",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["refresh/no-op refresh (nothing changed)"]
			if !ok {
				return nil
			}
			return g.atMost(fmt.Sprintf("no-op refresh of %d files (goal is for 10,000)", len(s.m.Files)), f.Median, 100, "ms", "%.1f×")
		}},
	{"refresh", "refresh after a 1 KB append to the largest session", "≤ 20 ms",
		"an agent appends a few lines each turn: picking them up must cost what was appended, not the file",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["refresh/refresh after a 1 KB append"]
			if !ok || f.Skipped != "" {
				return nil
			}
			return g.atMost("refresh after a 1 KB append to a large session", f.Median, 20, "ms", "%.1f×")
		}},
	{"search", "in-process query latency, all queries: p50", "≤ 5 ms",
		"a long-lived caller (grove serve, an agent's tool) answers as fast as a key is typed, and a common word costs what a rare one does",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["search in-process/all queries"]
			if !ok {
				return nil
			}
			return g.atMost("in-process query latency p50", f.Median, 5, "ms", "%.1f×")
		}},
	{"search", "in-process query latency, all queries: p99", "≤ 50 ms",
		"no query shape (a prefix, a phrase, Chinese text) is an outlier a user waits on",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["search in-process/all queries"]
			if !ok {
				return nil
			}
			p99 := f.P99
			if p99 == 0 {
				p99 = f.Max
			}
			return g.atMost("in-process query latency p99", p99, 50, "ms", "%.1f×")
		}},
	{"search", "whole-process grove search ÷ rg and rg -i, slowest query", "≥ 10× faster",
		"the index must beat what a user runs without it, a search of the raw JSONL, with grove's process start-up counted",
		func(s *suite, g goal) []Target {
			var out []Target
			for _, mode := range []string{"rg", "rg -i"} {
				worst, found := math.Inf(1), false
				for k, v := range s.res.Ratios {
					if strings.HasPrefix(k, "rg_over_grove/"+mode+"/") {
						worst, found = math.Min(worst, v), true
					}
				}
				if found {
					out = append(out, g.one("whole-process grove search vs "+mode+" (slowest query)", worst, "×", worst >= 10,
						fmt.Sprintf("%.1f× (%.1f× instead of 10×)", 10/worst, worst))...)
				}
			}
			return out
		}},
	{"path", "in-process path (recursive CTE) at depth 10,000", "≤ 10 ms",
		"every view shows a path, and the longest sessions reach 10,000 entries on one path",
		func(s *suite, g goal) []Target {
			c, ok := s.byName["path/CTE path, depth 10000"]
			if !ok {
				return nil
			}
			return g.atMost("in-process path at depth 10,000", c.Median, 10, "ms", "%.1f×")
		}},
	{"path", "in-process path at depth 10,000 ÷ PathTo over the file's entries in memory", "< 1.0",
		"the index must answer a path faster than reading the file and walking it, or it is not worth keeping",
		func(s *suite, g goal) []Target {
			r, ok := s.res.Ratios["cte_over_pathto/10000"]
			if !ok {
				return nil
			}
			return g.one("in-process path at depth 10,000 ÷ PathTo over the file's entries", r, "×", r < 1, fmt.Sprintf("%.1f×", r))
		}},
	{"path", "in-process path at depth 100,000", "≤ 100 ms",
		"a path ten times deeper costs at most ten times more: no step of the walk is quadratic",
		func(s *suite, g goal) []Target {
			c, ok := s.byName["path/CTE path, depth 100000"]
			if !ok {
				return nil
			}
			return g.atMost("in-process path at depth 100,000", c.Median, 100, "ms", "%.1f×")
		}},
	{"verify", "grove verify of the main corpus ÷ its cold index", "≤ 1.0",
		"verify checks every leaf's path two ways; it must cost no more than building the index it checks",
		func(s *suite, g goal) []Target {
			v, okV := s.byName["verify/verify every leaf (CTE = PathTo)"]
			c, okC := s.byName["index/cold index: wall time"]
			if !okV || !okC || c.Median <= 0 {
				return nil
			}
			r := v.Median / c.Median
			return g.one(fmt.Sprintf("verify of the %s corpus ÷ its cold index", mb(s.m.Bytes)), r, "×", r <= 1, fmt.Sprintf("%.1f×", r))
		}},
	{"baseline", "cold index MB/s ÷ Python + C SQLite's on the same files", "≥ 2.0×",
		"pure-Go SQLite is slower than C; grove's cold build (bulk search-text writes, two cores) must more than make up for it against a plain script doing the same work",
		func(s *suite, g goal) []Target {
			r, ok := s.res.Ratios["grove_index_over_baseline"]
			if !ok {
				return nil
			}
			return g.baselineRatio(fmt.Sprintf("cold index of the %s corpus vs Python + C SQLite", mb(s.m.Bytes)), r)
		}},
	{"many-files", "no-op refresh of 10,000 unchanged files", "≤ 100 ms",
		"a team's machine holds thousands of sessions: a refresh with nothing changed must not read them",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["many-files/no-op refresh"]
			if !ok || f.Skipped != "" {
				return nil
			}
			what := fmt.Sprintf("no-op refresh of %d unchanged files", s.cfg.RefreshFiles)
			if s.cfg.RefreshFiles != 10000 {
				what += " (goal is for 10,000)"
			}
			return g.atMost(what, f.Median, 100, "ms", "%.1f×")
		}},
	{"watch", "grove watch CPU while idle", "≤ 1 % of a core",
		"grove watch runs all day: idle, it must cost nothing a user notices (no polling loop)",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["watch/idle CPU"]
			switch {
			case !ok:
				return nil
			case f.Skipped != "":
				return []Target{g.notMeasured("grove watch CPU while idle", f.Skipped)}
			}
			return g.atMost("grove watch CPU while idle", f.Median, 1, "%", "%.1f×")
		}},
	{"watch", "grove watch exit status after SIGINT", "0",
		"Ctrl-C is how a user stops it: a clean stop must not look like a failure",
		func(s *suite, g goal) []Target {
			if s.watchExit == nil {
				return nil
			}
			return g.one("grove watch exit status after SIGINT", float64(*s.watchExit), "", *s.watchExit == 0, fmt.Sprintf("status %d", *s.watchExit))
		}},
	{"append", "refresh after a 1 KB append, each session size", "≤ 20 ms",
		"the cost of picking up an agent's new lines must not grow with the session's size",
		func(s *suite, g goal) []Target {
			var out []Target
			for _, size := range s.cfg.AppendSizes {
				label := sizeLabel(size)
				if f, ok := s.byName["append/"+label+": refresh after a 1 KB append"]; ok {
					out = append(out, g.atMost("refresh after a 1 KB append to a "+label, f.Median, 20, "ms", "%.1f×")...)
				}
			}
			return out
		}},
	{"append", "bytes read by that refresh: the largest session ÷ the smallest", "≤ 2× (no growth with the file's size)",
		"a refresh after an append reads the new bytes and fixed-size fingerprints, never the file again",
		func(s *suite, g goal) []Target {
			var small, large int64
			for _, size := range s.cfg.AppendSizes {
				if small == 0 || size < small {
					small = size
				}
				large = max(large, size)
			}
			fs, okS := s.byName["append/"+sizeLabel(small)+": bytes read by the refresh"]
			fl, okL := s.byName["append/"+sizeLabel(large)+": bytes read by the refresh"]
			if !okS || !okL || small == large {
				return nil
			}
			what := fmt.Sprintf("bytes read by a refresh after a 1 KB append: %s ÷ %s", sizeLabel(large), sizeLabel(small))
			switch {
			case fs.Skipped != "" || fl.Skipped != "":
				return []Target{g.notMeasured(what, notMeasuredBytesRead)}
			case fs.Median <= 0:
				return nil
			}
			r := fl.Median / fs.Median
			return g.one(what, r, "×", r <= 2, fmt.Sprintf("%.1f×", r/2))
		}},
	{"big-mem", "cold index of one 500 MB session: peak RSS", fmt.Sprintf("≤ %d MB", rssBound),
		"one session can be as large as a whole corpus: its memory is bounded by the same rule",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["big-mem/cold index: peak RSS"]
			if !ok || f.Skipped != "" {
				return nil
			}
			return g.atMost(fmt.Sprintf("cold index of one %s session: peak RSS", mb(s.cfg.BigMem)), f.Max, rssBound, "MB", "%.2f×")
		}},
	{"long-line", "peak RSS of each command on a file with one very long line, largest run", "≤ 3× the longest line + 40 MB",
		"SPEC §2.8: memory stays within a small multiple of the longest line, whatever the file's size",
		func(s *suite, g goal) []Target {
			var out []Target
			for _, f := range s.res.Figures {
				bound, ok := s.longLineGoals[f.Name]
				if f.Section != "long-line" || f.Skipped != "" || !ok {
					continue
				}
				t := g.atMost("long lines: "+f.Name+" (largest run)", f.Max, bound, "MB", "%.2f×")
				t[0].Goal = fmt.Sprintf("≤ %.0f MB (3× the longest line + 40 MB)", bound)
				out = append(out, t...)
			}
			return out
		}},
	{"sizes", "cold index MB/s ÷ Python + C SQLite's, each size, runs alternated", "≥ 2.0×",
		"the cold build's lead over the baseline must hold as the corpus grows",
		func(s *suite, g goal) []Target {
			var out []Target
			for _, size := range s.cfg.IndexSizes {
				label := corpusgen.FormatSize(size)
				if r, ok := s.res.Ratios["grove_index_over_baseline/"+label]; ok {
					out = append(out, g.baselineRatio("cold index at "+label+" vs Python + C SQLite (runs alternated)", r)...)
				}
			}
			return out
		}},
	{"sizes", "cold index peak RSS, each size, largest run", fmt.Sprintf("≤ %d MB", sizesRSSBound),
		"memory must not grow with the corpus's size",
		func(s *suite, g goal) []Target {
			var out []Target
			for _, size := range s.cfg.IndexSizes {
				label := corpusgen.FormatSize(size)
				if f, ok := s.byName["sizes/"+label+": cold index peak RSS"]; ok {
					out = append(out, g.atMost("cold index at "+label+": peak RSS (largest run)", f.Max, sizesRSSBound, "MB", "%.2f×")...)
				}
			}
			return out
		}},
	{"ready", "listings answer during a cold index ÷ the whole cold index", "≤ 0.5",
		"on a first index a user can list sessions and read paths while the search text is still being built",
		func(s *suite, g goal) []Target {
			f, ok := s.byName["ready/structure ready ÷ full build"]
			if !ok {
				return nil
			}
			return g.atMost("structure ready (listings answer) ÷ the full cold index", f.Median, 0.5, "×", "%.2f×")
		}},
	{"shapes", "grove verify of a comb, a star and a chain of 100,000 entries", "≤ 10 s (in seconds)",
		"no tree shape (every entry a branch point, one root with every entry under it, one long path) makes a whole-session check quadratic",
		func(s *suite, g goal) []Target {
			var out []Target
			for _, sh := range shapes {
				f, ok := s.byName[fmt.Sprintf("shapes/verify %s of %d entries", sh, s.cfg.ShapeEntries)]
				if !ok {
					continue
				}
				t := g.atMost(fmt.Sprintf("verify of a %d-entry %s", s.cfg.ShapeEntries, sh), f.Median, 10, "s", "%.1f×")
				if !t[0].Met && strings.HasPrefix(f.Note, "did not finish") {
					t[0].Missed = fmt.Sprintf("at least %.1f× (killed at the timeout)", f.Median/10)
				}
				out = append(out, t...)
			}
			return out
		}},
	{"export", "export of one 60 MB session as md, html and jsonl: peak RSS, largest run", fmt.Sprintf("≤ %d MB", exportRSSBound),
		"an export streams the path: its memory does not grow with the session",
		func(s *suite, g goal) []Target {
			var out []Target
			for _, f := range s.res.Figures {
				if f.Section == "export" && f.Skipped == "" && strings.HasSuffix(f.Name, ": peak RSS") {
					out = append(out, g.atMost("export of one "+strings.TrimSuffix(f.Name, ": peak RSS")+" (largest run)", f.Max, exportRSSBound, "MB", "%.2f×")...)
				}
			}
			return out
		}},
	{"dump", "index dumps: the reference grove's cold index, this grove's, and this grove's after grove rebuild", "equal",
		"the same files give the same index whichever grove built it and however (a cold build, a rebuild): no answer changes unnoticed",
		func(s *suite, g goal) []Target {
			var out []Target
			for _, c := range s.dumps {
				out = append(out, g.one("index dump: "+c.what, float64(c.diff.Difference), "differing lines", c.diff.Equal,
					fmt.Sprintf("%d lines differ, first at line %d", c.diff.Difference, c.diff.Line))...)
			}
			return out
		}},
}

// targets checks every goal on this run's figures.
func (s *suite) targets() {
	for _, g := range goals {
		s.res.Targets = append(s.res.Targets, g.check(s, g)...)
	}
}

// one is the target what of g: value in unit, met or not; missed says by
// how much when not.
func (g goal) one(what string, value float64, unit string, met bool, missed string) []Target {
	t := Target{Step: g.Step, What: what, Goal: g.Bound, Why: g.Why, Value: value, Unit: unit, Met: met}
	if !met {
		t.Missed = missed
	}
	return []Target{t}
}

// atMost is the target what of g: value ≤ bound, missed by value ÷ bound
// printed with format.
func (g goal) atMost(what string, value, bound float64, unit, format string) []Target {
	return g.one(what, value, unit, value <= bound, fmt.Sprintf(format, value/bound))
}

// baselineRatio is the target what of g: grove's MB/s ÷ the baseline's,
// r, at least 2.
func (g goal) baselineRatio(what string, r float64) []Target {
	return g.one(what, r, "×", r >= 2, fmt.Sprintf("%.2f× (%.2f× instead of 2.0×)", 2/r, r))
}

// notMeasured is the target what of g that the run could not check, and
// why.
func (g goal) notMeasured(what, why string) Target {
	return Target{Step: g.Step, What: what, Goal: g.Bound, Why: g.Why, NotMeasured: why}
}

// writeGoals prints the goals as a Markdown table: step, figure, bound
// and why (docs/benchmarks.md holds the same table).
func writeGoals(w io.Writer) error {
	fmt.Fprintln(w, "| step | figure | bound | why |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, g := range goals {
		if _, err := fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", g.Step, g.Figure, g.Bound, g.Why); err != nil {
			return err
		}
	}
	return nil
}
