package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// targets checks the goals the issues set against this run's figures.
func (s *suite) targets() {
	add := func(issue, what, goal string, value float64, unit string, met bool, missed string) {
		t := Target{Issue: issue, What: what, Goal: goal, Value: value, Unit: unit, Met: met}
		if !met {
			t.Missed = missed
		}
		s.res.Targets = append(s.res.Targets, t)
	}
	if f, ok := s.byName["search in-process/all queries"]; ok {
		add("search", "in-process query latency p50", "≤ 5 ms", f.Median, "ms", f.Median <= 5, fmt.Sprintf("%.1f×", f.Median/5))
		p99 := f.P99
		if p99 == 0 {
			p99 = f.Max
		}
		add("search", "in-process query latency p99", "≤ 50 ms", p99, "ms", p99 <= 50, fmt.Sprintf("%.1f×", p99/50))
	}
	for _, mode := range []string{"rg", "rg -i"} {
		worst, found := math.Inf(1), false
		for k, v := range s.res.Ratios {
			if strings.HasPrefix(k, "rg_over_grove/"+mode+"/") {
				worst, found = math.Min(worst, v), true
			}
		}
		if found {
			add("search", "whole-process grove search vs "+mode+" (slowest query)", "≥ 10× faster", worst, "×", worst >= 10, fmt.Sprintf("%.1f× (%.1f× instead of 10×)", 10/worst, worst))
		}
	}
	if f, ok := s.byName["refresh/no-op refresh (nothing changed)"]; ok {
		add("refresh", fmt.Sprintf("no-op refresh of %d files (goal is for 10,000)", len(s.m.Files)), "≤ 100 ms", f.Median, "ms", f.Median <= 100, fmt.Sprintf("%.1f×", f.Median/100))
	}
	if f, ok := s.byName["refresh/refresh after a 1 KB append"]; ok && f.Skipped == "" {
		add("refresh", "refresh after a 1 KB append to a large session", "≤ 20 ms", f.Median, "ms", f.Median <= 20, fmt.Sprintf("%.1f×", f.Median/20))
	}
	if r, ok := s.res.Ratios["index_size_over_jsonl"]; ok {
		add("search", "index size ÷ JSONL size", "≤ 1.0", r, "×", r <= 1, fmt.Sprintf("%.2f over", r-1))
	}
	s.refreshTargets(add)
	s.longLineTargets(add)
	s.issue16Targets(add)
}

// refreshTargets checks the refresh issue's goals on the figures of the
// many-files, append, big-mem and watch steps (and the cold index's
// memory). A goal whose figure was skipped is listed as not measured.
func (s *suite) refreshTargets(add func(issue, what, goal string, value float64, unit string, met bool, missed string)) {
	notMeasured := func(what, goal, why string) {
		s.res.Targets = append(s.res.Targets, Target{Issue: "refresh", What: what, Goal: goal, NotMeasured: why})
	}
	rss := func(what string, f Figure) {
		add("refresh", what, fmt.Sprintf("≤ %d MB", rssGoal), f.Max, "MB", f.Max <= rssGoal, fmt.Sprintf("%.1f×", f.Max/rssGoal))
	}
	if f, ok := s.byName["index/cold index: peak RSS"]; ok {
		rss(fmt.Sprintf("cold index of the %s corpus: peak RSS (largest run)", mb(s.m.Bytes)), f)
	}
	if f, ok := s.byName["big-mem/cold index: peak RSS"]; ok && f.Skipped == "" {
		rss(fmt.Sprintf("cold index of one %s session: peak RSS", mb(s.cfg.BigMem)), f)
	}
	if f, ok := s.byName["many-files/no-op refresh"]; ok && f.Skipped == "" {
		what := fmt.Sprintf("no-op refresh of %d unchanged files", s.cfg.RefreshFiles)
		if s.cfg.RefreshFiles != 10000 {
			what += " (goal is for 10,000)"
		}
		add("refresh", what, "≤ 100 ms", f.Median, "ms", f.Median <= 100, fmt.Sprintf("%.1f×", f.Median/100))
	}
	var small, large int64
	for _, size := range s.cfg.AppendSizes {
		label := sizeLabel(size)
		if f, ok := s.byName["append/"+label+": refresh after a 1 KB append"]; ok {
			add("refresh", "refresh after a 1 KB append to a "+label, "≤ 20 ms", f.Median, "ms", f.Median <= 20, fmt.Sprintf("%.1f×", f.Median/20))
		}
		if small == 0 || size < small {
			small = size
		}
		large = max(large, size)
	}
	fs, okS := s.byName["append/"+sizeLabel(small)+": bytes read by the refresh"]
	fl, okL := s.byName["append/"+sizeLabel(large)+": bytes read by the refresh"]
	if okS && okL && small != large {
		what := fmt.Sprintf("bytes read by a refresh after a 1 KB append: %s ÷ %s", sizeLabel(large), sizeLabel(small))
		const goal = "≤ 2× (no growth with the file's size)"
		switch {
		case fs.Skipped != "" || fl.Skipped != "":
			notMeasured(what, goal, notMeasuredBytesRead)
		case fs.Median > 0:
			r := fl.Median / fs.Median
			add("refresh", what, goal, r, "×", r <= 2, fmt.Sprintf("%.1f×", r/2))
		}
	}
	if f, ok := s.byName["watch/idle CPU"]; ok {
		if f.Skipped != "" {
			notMeasured("grove watch CPU while idle", "≤ 1 % of a core", f.Skipped)
		} else {
			add("refresh", "grove watch CPU while idle", "≤ 1 % of a core", f.Median, "%", f.Median <= 1, fmt.Sprintf("%.1f×", f.Median/1))
		}
	}
	if s.watchExit != nil {
		add("refresh", "grove watch exit status after SIGINT", "0", float64(*s.watchExit), "", *s.watchExit == 0, fmt.Sprintf("status %d", *s.watchExit))
	}
}

// writeTable prints r for people.
func writeTable(w io.Writer, r *Result) error {
	c := r.Corpus
	fmt.Fprintf(w, "grove-bench  %s  %d CPUs (%s)  %s  %s\n", r.Machine.When, r.Machine.CPUs, r.Machine.CPU, r.Machine.OS, r.Machine.GoVersion)
	if c.Dir != "" {
		fmt.Fprintf(w, "corpus       %s: %s in %d files, %d entries; index %.1f MB\n", c.Dir, mb(c.Bytes), c.Files, c.Entries, c.IndexMB)
	}
	fmt.Fprintln(w)
	nameW := len("FIGURE")
	for _, f := range r.Figures {
		nameW = max(nameW, width(f.Name)+2)
	}
	row := func(name string, cols ...string) {
		fmt.Fprintf(w, "%s%s", name, strings.Repeat(" ", max(1, nameW-width(name))))
		for i, c := range cols {
			switch i {
			case len(cols) - 1: // the note
				fmt.Fprintf(w, "  %s", c)
			case len(cols) - 3: // the unit
				fmt.Fprintf(w, " %-9s", c)
			default:
				fmt.Fprintf(w, "%9s", c)
			}
		}
		fmt.Fprintln(w)
	}
	row("FIGURE", "MEDIAN", "MIN", "MAX", "P99", "UNIT", "RUNS", "NOTE")
	section := ""
	for _, f := range r.Figures {
		if f.Section != section {
			section = f.Section
			fmt.Fprintf(w, "[%s]\n", section)
		}
		if f.Skipped != "" {
			row("  "+f.Name, "-", "-", "-", "-", "", "0", "skipped: "+f.Skipped)
			continue
		}
		p99 := "-"
		if f.P99 > 0 {
			p99 = num(f.P99)
		}
		row("  "+f.Name, num(f.Median), num(f.Min), num(f.Max), p99, f.Unit, fmt.Sprint(f.Runs), f.Note)
	}
	if len(r.Targets) > 0 {
		fmt.Fprintln(w, "\nTARGETS")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, t := range r.Targets {
			verdict := "met"
			switch {
			case t.NotMeasured != "":
				fmt.Fprintf(tw, "  %s\t%s\t-\tnot measured\t(%s)  %s\n", t.What, t.Goal, t.Issue, strings.TrimPrefix(t.NotMeasured, "not measured: "))
				continue
			case !t.Met:
				verdict = "MISSED, by " + t.Missed
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s %s\t%s\t(%s)\n", t.What, t.Goal, num(t.Value), t.Unit, verdict, t.Issue)
		}
		return tw.Flush()
	}
	return nil
}

// num prints a figure with three significant digits or so.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

// cpuModel picks the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo string) string {
	for _, line := range strings.Split(cpuinfo, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// width is the number of terminal columns s takes: East Asian wide
// characters take two.
func width(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x1100 && (r <= 0x115F || r >= 0x2E80 && r <= 0xA4CF || r >= 0xAC00 && r <= 0xD7A3 || r >= 0xF900 && r <= 0xFAFF || r >= 0xFF00 && r <= 0xFF60 || r >= 0x20000) {
			n++
		}
	}
	return n
}
