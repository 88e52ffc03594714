package main

import (
	"context"
	"encoding/json"
	"fmt"
)

// verify runs `grove verify` over every leaf of the corpus: each path by
// the CTE against PathTo over the file. It runs once: at 1 GB one run
// takes minutes (every leaf's path is walked twice).
func (s *suite) verify(ctx context.Context) error {
	var secs, peak []float64
	var rep struct {
		Sessions, Leaves, Mismatches, Stale int
	}
	for i := 0; i < 1; i++ {
		r, err := runProc(ctx, nil, s.grove, s.groveArgs("verify"), 1)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(r.Stdout, &rep); err != nil {
			return fmt.Errorf("grove verify output: %w", err)
		}
		secs = append(secs, seconds(r.Wall))
		peak = append(peak, float64(r.PeakKB)/1024)
	}
	f := figureOf("verify", "verify every leaf (CTE = PathTo)", "s", secs)
	f.Note = fmt.Sprintf("%d sessions, %d leaves, %d mismatches, %d stale", rep.Sessions, rep.Leaves, rep.Mismatches, rep.Stale)
	s.add(f)
	s.add(figureOf("verify", "verify: peak RSS", "MB", peak))
	if rep.Mismatches > 0 {
		return fmt.Errorf("grove verify found %d mismatches between the CTE and PathTo: a bug", rep.Mismatches)
	}
	return nil
}
