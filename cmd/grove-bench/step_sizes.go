package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// sizeCorpus returns the directory and manifest of the corpus of size
// bytes the sizes step measures: the main corpus when size is --size (and
// there is no big session), else WORK/corpus-SIZE-seedN made with the main
// corpus's options.
func (s *suite) sizeCorpus(ctx context.Context, size int64) (string, *corpusgen.Manifest, error) {
	o := s.cfg.Corpus
	if size == o.Size && o.BigSession == 0 {
		if s.m != nil {
			return s.cfg.Dir, s.m, nil
		}
		m, err := ensureCorpus(ctx, s.cfg.Dir, o, s.cfg.ExplicitDir, s.log)
		return s.cfg.Dir, m, err
	}
	o.Size, o.BigSession = size, 0
	return s.auxCorpus(ctx, fmt.Sprintf("corpus-%d-seed%d", size, o.Seed), o, "--index-sizes")
}

// indexSizes measures, at each of IndexSizes, the cold `grove index` of a
// generated corpus (seed --seed) into an empty index and baseline.py on
// the same files, Runs times each, alternating grove and the baseline so
// that a change in the machine's load reaches both alike: medians of wall
// time, MB/s and peak RSS, and grove's MB/s ÷ the baseline's.
func (s *suite) indexSizes(ctx context.Context) error {
	const sec = "sizes"
	if len(s.cfg.IndexSizes) == 0 {
		s.skip(sec, "cold index at each size", "--index-sizes not given (the index and baseline steps measure --size)")
		return nil
	}
	for _, size := range s.cfg.IndexSizes {
		dir, m, err := s.sizeCorpus(ctx, size)
		if err != nil {
			return err
		}
		label := corpusgen.FormatSize(size)
		db := filepath.Join(s.cfg.Work, fmt.Sprintf("sizes-%d.db", size))
		bdb := filepath.Join(s.cfg.Work, fmt.Sprintf("sizes-%d-baseline.db", size))
		var secs, mbps, peak, bsecs, bmbps, bpeak []float64
		skip := ""
		for i := 0; i < s.cfg.Runs; i++ {
			removeDB(db)
			r, sum, err := s.groveIndex(ctx, db, dir)
			if err != nil {
				return err
			}
			if sum.Files != len(m.Files) {
				return fmt.Errorf("%s: grove index saw %d files in %s, the manifest lists %d", label, sum.Files, dir, len(m.Files))
			}
			secs = append(secs, seconds(r.Wall))
			mbps = append(mbps, float64(m.Bytes)/1e6/r.Wall.Seconds())
			peak = append(peak, float64(r.PeakKB)/1024)
			fmt.Fprintf(s.log, "   %s grove run %d: %.2f s, %.1f MB/s\n", label, i+1, r.Wall.Seconds(), mbps[len(mbps)-1])
			if skip != "" {
				continue
			}
			var b baselineOut
			b, skip, err = s.baselineOnce(ctx, dir, bdb)
			if err != nil {
				return err
			}
			if skip == "" {
				bsecs = append(bsecs, b.Seconds)
				bmbps = append(bmbps, float64(m.Bytes)/1e6/b.Seconds)
				bpeak = append(bpeak, float64(b.PeakKB)/1024)
				fmt.Fprintf(s.log, "   %s baseline run %d: %.2f s, %.1f MB/s\n", label, i+1, b.Seconds, bmbps[len(bmbps)-1])
			}
		}
		removeDB(db)
		removeDB(bdb)
		g := figureOf(sec, label+": cold index throughput", "MB/s", mbps)
		g.Note = fmt.Sprintf("%s in %d files, %d entries", mb(m.Bytes), len(m.Files), m.Entries)
		s.add(g)
		s.add(figureOf(sec, label+": cold index wall time", "s", secs))
		s.add(figureOf(sec, label+": cold index peak RSS", "MB", peak))
		name := label + ": Python + C SQLite baseline throughput"
		if skip != "" {
			s.skip(sec, name, skip)
			continue
		}
		b := figureOf(sec, name, "MB/s", bmbps)
		ratio := g.Median / b.Median
		s.res.Ratios["grove_index_over_baseline/"+label] = ratio
		b.Note = fmt.Sprintf("grove indexes at %.2f× this speed (runs alternated with grove's)", ratio)
		s.add(b)
		s.add(figureOf(sec, label+": baseline indexing time", "s", bsecs))
		s.add(figureOf(sec, label+": baseline peak RSS", "MB", bpeak))
	}
	return nil
}
