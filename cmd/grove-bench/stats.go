package main

import (
	"math"
	"sort"
	"time"
)

// Figure is one measured quantity: the median of its runs, with the
// smallest and largest run, in Unit.
type Figure struct {
	Section string  `json:"section"`
	Name    string  `json:"name"`
	Median  float64 `json:"median"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	P99     float64 `json:"p99,omitempty"` // latencies only
	Unit    string  `json:"unit"`
	Runs    int     `json:"runs"`
	Note    string  `json:"note,omitempty"`
	// Skipped says why the figure could not be measured (a tool is
	// missing); the numbers are then zero.
	Skipped string `json:"skipped,omitempty"`
}

// signedMs is the unit of a figure that is a difference of two medians in
// milliseconds: noise can make it negative, so it is the one unit whose
// median may be below 0.
const signedMs = "ms (difference)"

// figureOf summarises samples (already in unit).
func figureOf(section, name, unit string, samples []float64) Figure {
	f := Figure{Section: section, Name: name, Unit: unit, Runs: len(samples)}
	if len(samples) == 0 {
		return f
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	f.Min, f.Max = s[0], s[len(s)-1]
	f.Median = quantile(s, 0.5)
	if len(s) >= 10 {
		f.P99 = quantile(s, 0.99)
	}
	return f
}

// quantile of sorted s, by linear interpolation between closest ranks.
func quantile(s []float64, q float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func seconds(d time.Duration) float64 { return d.Seconds() }
