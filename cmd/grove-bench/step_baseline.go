package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

//go:embed baseline.py
var baselinePy []byte

// baseline runs baseline.py Runs times on the main corpus: Python's json
// and C SQLite doing what grove's indexer does (parse, store entries, put
// the same search text in FTS5); its MB/s beside the index step's.
func (s *suite) baseline(ctx context.Context) error {
	db := filepath.Join(s.cfg.Work, "baseline.db")
	var secs, mbps, peak []float64
	var out baselineOut
	for i := 0; i < s.cfg.Runs; i++ {
		var skip string
		var err error
		if out, skip, err = s.baselineOnce(ctx, s.cfg.Dir, db); err != nil {
			return err
		}
		if skip != "" {
			s.skip("baseline", "C SQLite FTS5 baseline (python3)", skip)
			return nil
		}
		secs = append(secs, out.Seconds)
		mbps = append(mbps, float64(s.m.Bytes)/1e6/out.Seconds)
		peak = append(peak, float64(out.PeakKB)/1024)
	}
	f := figureOf("baseline", "Python + C SQLite "+out.SQLiteVersion+": cold index", "MB/s", mbps)
	if g, ok := s.byName["index/cold index: throughput"]; ok && f.Median > 0 {
		ratio := g.Median / f.Median
		s.res.Ratios["grove_index_over_baseline"] = ratio
		f.Note = fmt.Sprintf("grove indexes at %.2f× this speed", ratio)
	}
	if !out.ContentlessDelete {
		f.Note += "; this SQLite lacks contentless_delete (3.43+), so its FTS table is plain contentless"
	}
	s.add(f)
	s.add(figureOf("baseline", "Python + C SQLite: indexing time", "s", secs))
	s.add(figureOf("baseline", "Python + C SQLite: peak RSS", "MB", peak))
	ratio := float64(out.DBBytes) / float64(s.m.Bytes)
	s.add(Figure{Section: "baseline", Name: "Python + C SQLite: index size ÷ JSONL size", Median: ratio, Min: ratio, Max: ratio, Unit: "×", Runs: 1})
	return nil
}

// baselineOut is what one run of baseline.py reports, with its peak RSS.
type baselineOut struct {
	Seconds           float64 `json:"seconds"` // indexing only, Python's start-up excluded
	Entries           int64   `json:"entries"`
	DBBytes           int64   `json:"db_bytes"`
	SQLiteVersion     string  `json:"sqlite_version"`
	ContentlessDelete bool    `json:"contentless_delete"`
	PeakKB            int64   `json:"-"`
}

// baselineOnce runs baseline.py once on dir into db (removed after), or
// says why it cannot be measured.
func (s *suite) baselineOnce(ctx context.Context, dir, db string) (baselineOut, string, error) {
	var out baselineOut
	py, err := exec.LookPath("python3")
	if err != nil {
		return out, "python3 is not installed", nil
	}
	script := filepath.Join(s.cfg.Work, "baseline.py")
	if err := os.WriteFile(script, baselinePy, 0o644); err != nil {
		return out, "", err
	}
	removeDB(db)
	defer removeDB(db)
	// -S: no site packages to import; the script needs only the standard
	// library.
	r, err := runProc(ctx, nil, py, []string{"-S", script, "--db", db, dir})
	if err == nil {
		err = json.Unmarshal(r.Stdout, &out)
	}
	if err != nil {
		if ctx.Err() != nil {
			return out, "", ctx.Err()
		}
		return out, "baseline.py failed: " + err.Error(), nil
	}
	out.PeakKB = r.PeakKB
	return out, "", nil
}
