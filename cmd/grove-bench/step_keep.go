package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// keepStep measures what the kept store costs (docs/keeping.md): the main
// corpus indexed cold into an empty index with keeping on and with
// --no-keep, runs alternated, each index in a folder of its own (the kept
// store is the folder's kept/); the kept store's size over the JSONL's;
// and a refresh after a 1 KB append to the largest pi session, with and
// without keeping, alternated. The ratios are keep over --no-keep, of the
// medians.
func (s *suite) keepStep(ctx context.Context) error {
	keepDB := filepath.Join(s.cfg.Work, "keep", "on", "index.db")
	offDB := filepath.Join(s.cfg.Work, "keep", "off", "index.db")
	for _, db := range []string{keepDB, offDB} {
		if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
			return err
		}
	}
	args := func(db string, more ...string) []string {
		a := append([]string{"--db", db, "--json"}, more...)
		if db == offDB {
			a = append(a, "--no-keep")
		}
		return a
	}
	var on, off []float64
	for i := 0; i < s.cfg.Runs; i++ {
		for _, db := range []string{keepDB, offDB} {
			removeDB(db)
			os.RemoveAll(filepath.Join(filepath.Dir(db), "kept"))
			r, err := runProc(ctx, nil, s.grove, args(db, "index", "--root", s.cfg.Dir))
			if err != nil {
				return err
			}
			if db == keepDB {
				on = append(on, seconds(r.Wall))
			} else {
				off = append(off, seconds(r.Wall))
			}
		}
		fmt.Fprintf(s.log, "   run %d: %.2f s keeping, %.2f s --no-keep\n", i+1, on[i], off[i])
	}
	fOn := s.add(figureOf("keep", "cold index, keeping: wall time", "s", on))
	fOff := s.add(figureOf("keep", "cold index, --no-keep: wall time", "s", off))
	ratio := fOn.Median / fOff.Median
	s.res.Ratios["keep_cold_index_over_no_keep"] = ratio
	s.add(Figure{Section: "keep", Name: "cold index: keeping ÷ --no-keep", Median: ratio, Min: ratio, Max: ratio, Unit: "×", Runs: 1})

	size := dirSize(filepath.Join(filepath.Dir(keepDB), "kept"))
	kr := float64(size) / float64(s.m.Bytes)
	s.res.Ratios["kept_size_over_jsonl"] = kr
	s.add(Figure{Section: "keep", Name: "kept store ÷ JSONL size", Median: kr, Min: kr, Max: kr, Unit: "×", Runs: 1,
		Note: fmt.Sprintf("%s kept for %s JSONL", mb(size), mb(s.m.Bytes))})

	if s.res.Corpus.BigFile == "" {
		s.skip("keep", "refresh after a 1 KB append, keeping and not", "the corpus has no healthy pi session")
		return nil
	}
	file := filepath.Join(s.cfg.Dir, filepath.FromSlash(s.res.Corpus.BigFile))
	parent, _, restore, err := appendable(file)
	if err != nil {
		return err
	}
	defer restore()
	var rOn, rOff []float64
	for i := 0; i < max(s.cfg.Runs, 5); i++ {
		for _, db := range []string{keepDB, offDB} {
			id := fmt.Sprintf("keep%03d%s", i, filepath.Base(filepath.Dir(db)))
			line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2027-01-01T00:00:%02d.000Z","message":{"role":"user","content":%q}}`+"\n",
				id, parent, i%60, strings.Repeat("appended by grove-bench ", 38))
			if err := appendLine(file, line); err != nil {
				return err
			}
			parent = id
			time.Sleep(10 * time.Millisecond)
			r, err := runProc(ctx, nil, s.grove, args(db, "index", "--root", s.cfg.Dir))
			if err != nil {
				return err
			}
			if db == keepDB {
				rOn = append(rOn, ms(r.Wall))
			} else {
				rOff = append(rOff, ms(r.Wall))
			}
		}
	}
	gOn := s.add(figureOf("keep", "refresh after a 1 KB append, keeping", "ms", rOn))
	gOff := s.add(figureOf("keep", "refresh after a 1 KB append, --no-keep", "ms", rOff))
	d := gOn.Median - gOff.Median
	s.res.Ratios["keep_refresh_append_extra_ms"] = d
	s.add(Figure{Section: "keep", Name: "refresh after append: keeping − --no-keep", Median: d, Min: d, Max: d, Unit: signedMs, Runs: 1,
		Note: "a difference of two medians: below 0 when keeping costs less than the noise"})
	return nil
}

// dirSize is the bytes of the files below dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
