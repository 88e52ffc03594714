package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

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
				fmt.Fprintf(tw, "  %s\t%s\t-\tnot measured\t(%s)  %s\n", t.What, t.Goal, t.Step, strings.TrimPrefix(t.NotMeasured, "not measured: "))
				continue
			case !t.Met:
				verdict = "MISSED, by " + t.Missed
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s %s\t%s\t(%s)\n", t.What, t.Goal, num(t.Value), t.Unit, verdict, t.Step)
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
