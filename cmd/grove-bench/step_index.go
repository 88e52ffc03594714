package main

import (
	"context"
	"encoding/json"
	"fmt"
)

// coldIndex indexes the whole corpus into an empty index, Runs times. The
// files are in the page cache after the first read (as they are for rg).
func (s *suite) coldIndex(ctx context.Context) error {
	var secs, mbps, eps, peak []float64
	var entries float64
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(s.db)
		r, err := runProc(ctx, nil, s.grove, s.groveArgs("index", "--root", s.cfg.Dir))
		if err != nil {
			return err
		}
		var sum struct{ Entries int64 }
		if err := json.Unmarshal(r.Stdout, &sum); err != nil {
			return fmt.Errorf("grove index output: %w", err)
		}
		entries = float64(sum.Entries)
		secs = append(secs, seconds(r.Wall))
		mbps = append(mbps, float64(s.m.Bytes)/1e6/r.Wall.Seconds())
		eps = append(eps, entries/r.Wall.Seconds())
		peak = append(peak, float64(r.PeakKB)/1024)
		fmt.Fprintf(s.log, "   run %d: %.2f s, %.1f MB/s\n", i+1, r.Wall.Seconds(), mbps[len(mbps)-1])
	}
	s.add(figureOf("index", "cold index: wall time", "s", secs))
	f := figureOf("index", "cold index: throughput", "MB/s", mbps)
	f.Note = fmt.Sprintf("%s of JSONL", mb(s.m.Bytes))
	s.add(f)
	s.add(figureOf("index", "cold index: entries", "entries/s", eps))
	s.add(figureOf("index", "cold index: peak RSS", "MB", peak))
	size := fileSize(s.db, s.db+"-wal")
	s.res.Corpus.IndexMB = float64(size) / 1e6
	ratio := float64(size) / float64(s.m.Bytes)
	s.res.Ratios["index_size_over_jsonl"] = ratio
	s.add(Figure{Section: "index", Name: "index size ÷ JSONL size", Median: ratio, Min: ratio, Max: ratio, Unit: "×", Runs: 1,
		Note: fmt.Sprintf("%s index for %s JSONL", mb(size), mb(s.m.Bytes))})
	return nil
}
