package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// The many-files step: a corpus of its own of many small sessions (pi's
// layout, kept under --work and reused as the main one is, with its own
// index): the cold index, then no-op refreshes.

// smallSession caps the size of each file of the many-files corpus: files
// come out at 4–9 KB, most near 8 KB.
const smallSession = 8 << 10

// filesCorpus is the many-files corpus: exactly RefreshFiles sessions of
// at most smallSession bytes (pi's layout, one directory per workspace,
// about 100 files per workspace), and the path of its index.
func (s *suite) filesCorpus(ctx context.Context) (dir, db string, m *corpusgen.Manifest, err error) {
	n := s.cfg.RefreshFiles
	o := s.auxOptions()
	o.Files, o.MaxSession = n, smallSession
	o.Size = int64(n) * 2 * smallSession // Files is the limit that binds
	o.Workspaces = max(4, n/100)
	name := fmt.Sprintf("files-%d-seed%d", n, o.Seed)
	dir, m, err = s.auxCorpus(ctx, name, o, "--refresh-files")
	return dir, filepath.Join(s.cfg.Work, name+".db"), m, err
}

// manyFiles indexes the many-files corpus into an empty index Runs times,
// then times `grove index` with nothing changed (a no-op refresh), at
// least 5 times.
func (s *suite) manyFiles(ctx context.Context) error {
	const sec = "many-files"
	if s.cfg.RefreshFiles == 0 {
		s.skip(sec, "no-op refresh", "--refresh-files 0")
		return nil
	}
	dir, db, m, err := s.filesCorpus(ctx)
	if err != nil {
		return err
	}
	var secs, mbps, eps, peak []float64
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(db)
		r, sum, err := s.groveIndex(ctx, db, dir)
		if err != nil {
			return err
		}
		if sum.Files != len(m.Files) {
			return fmt.Errorf("grove index saw %d files in %s, the manifest lists %d", sum.Files, dir, len(m.Files))
		}
		secs = append(secs, seconds(r.Wall))
		mbps = append(mbps, float64(m.Bytes)/1e6/r.Wall.Seconds())
		eps = append(eps, float64(sum.Entries)/r.Wall.Seconds())
		peak = append(peak, float64(r.PeakKB)/1024)
		fmt.Fprintf(s.log, "   cold run %d: %.2f s\n", i+1, r.Wall.Seconds())
	}
	cold := figureOf(sec, "cold index: wall time", "s", secs)
	cold.Note = fmt.Sprintf("%d files, %s, in %d workspaces", len(m.Files), mb(m.Bytes), len(m.Workspaces))
	s.add(cold)
	s.add(figureOf(sec, "cold index: throughput", "MB/s", mbps))
	s.add(figureOf(sec, "cold index: entries", "entries/s", eps))
	s.add(figureOf(sec, "cold index: peak RSS", "MB", peak))

	var lat, npeak []float64
	reread := 0
	for i := 0; i < max(s.cfg.Runs, 5); i++ {
		r, sum, err := s.groveIndex(ctx, db, dir)
		if err != nil {
			return err
		}
		reread += sum.Indexed + sum.Appended
		lat = append(lat, ms(r.Wall))
		npeak = append(npeak, float64(r.PeakKB)/1024)
	}
	f := figureOf(sec, "no-op refresh", "ms", lat)
	ratio := f.Median / (cold.Median * 1000)
	s.res.Ratios["noop_refresh_over_cold_index/many-files"] = ratio
	f.Note = fmt.Sprintf("%d unchanged files; %.4f× the cold index", len(m.Files), ratio)
	if reread > 0 {
		f.Note += fmt.Sprintf("; grove re-read %d files over %d runs", reread, len(lat))
	}
	s.add(f)
	s.add(figureOf(sec, "no-op refresh: peak RSS", "MB", npeak))
	return nil
}
