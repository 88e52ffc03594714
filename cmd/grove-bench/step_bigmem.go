package main

import (
	"context"
	"fmt"
	"path/filepath"
)

// bigSession indexes one generated pi session of BigMem bytes into an
// empty index of its own, once: wall time, throughput and peak RSS (the
// memory of a cold index is bounded whatever the session's size). The
// index is removed afterwards;
// the session is kept for the next run.
func (s *suite) bigSession(ctx context.Context) error {
	const sec = "big-mem"
	if s.cfg.BigMem == 0 {
		s.skip(sec, "cold index: peak RSS", "--big-mem-size 0")
		return nil
	}
	o := s.auxOptions()
	o.Size, o.BigSession = 0, s.cfg.BigMem
	dir, m, err := s.auxCorpus(ctx, fmt.Sprintf("bigmem-%d-seed%d", s.cfg.BigMem, o.Seed), o, "--big-mem-size")
	if err != nil {
		return err
	}
	db := filepath.Join(s.cfg.Work, "bigmem.db")
	removeDB(db)
	defer removeDB(db)
	r, sum, err := s.groveIndex(ctx, db, dir)
	if err != nil {
		return err
	}
	f := figureOf(sec, "cold index: wall time", "s", []float64{seconds(r.Wall)})
	f.Note = fmt.Sprintf("one pi session of %s, %d entries", mb(m.Bytes), sum.Entries)
	s.add(f)
	f = figureOf(sec, "cold index: throughput", "MB/s", []float64{float64(m.Bytes) / 1e6 / r.Wall.Seconds()})
	f.Note = fmt.Sprintf("%.0f entries/s", float64(sum.Entries)/r.Wall.Seconds())
	s.add(f)
	s.add(figureOf(sec, "cold index: peak RSS", "MB", []float64{float64(r.PeakKB) / 1024}))
	return nil
}
