package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// The refresh step: `grove index` run again over the main corpus and its
// index, first with nothing changed, then (after search and verify have
// read the index) after a 1 KB entry is appended to the largest session.

func (s *suite) noopRefresh(ctx context.Context) error {
	var secs, peak []float64
	for i := 0; i < max(s.cfg.Runs, 5); i++ {
		r, err := runProc(ctx, nil, s.grove, s.groveArgs("index", "--root", s.cfg.Dir))
		if err != nil {
			return err
		}
		secs = append(secs, ms(r.Wall))
		peak = append(peak, float64(r.PeakKB)/1024)
	}
	f := figureOf("refresh", "no-op refresh (nothing changed)", "ms", secs)
	f.Note = fmt.Sprintf("%d files", len(s.m.Files))
	s.add(f)
	s.add(figureOf("refresh", "no-op refresh: peak RSS", "MB", peak))
	return nil
}

// appendRefresh appends a 1 KB entry to the corpus's largest healthy pi
// session and times `grove index` picking it up, Runs times; then the file
// is cut back to its old length and mtime, so the corpus can be reused.
func (s *suite) appendRefresh(ctx context.Context) error {
	if s.res.Corpus.BigFile == "" {
		s.skip("refresh", "refresh after a 1 KB append", "the corpus has no healthy pi session")
		return nil
	}
	file := filepath.Join(s.cfg.Dir, filepath.FromSlash(s.res.Corpus.BigFile))
	parent, size, restore, err := appendable(file)
	if err != nil {
		return err
	}
	defer restore()
	var secs, peak []float64
	for i := 0; i < s.cfg.Runs; i++ {
		id := fmt.Sprintf("bench%03d", i)
		line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2027-01-01T00:00:%02d.000Z","message":{"role":"user","content":%q}}`+"\n",
			id, parent, i%60, strings.Repeat("appended by grove-bench ", 38))
		if err := appendLine(file, line); err != nil {
			return err
		}
		parent = id
		r, err := runProc(ctx, nil, s.grove, s.groveArgs("index", "--root", s.cfg.Dir))
		if err != nil {
			return err
		}
		secs = append(secs, ms(r.Wall))
		peak = append(peak, float64(r.PeakKB)/1024)
	}
	f := figureOf("refresh", "refresh after a 1 KB append", "ms", secs)
	f.Note = fmt.Sprintf("to the largest session, %s", mb(size))
	s.add(f)
	s.add(figureOf("refresh", "refresh after append: peak RSS", "MB", peak))
	return nil
}
