package main

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/corpusgen"
)

// queries is the fixed query set of the search figures (the serve step's
// searches too): grove's query and the literal text rg looks for.
var queries = []struct{ Name, Grove, Rg string }{
	{"common word", corpusgen.CommonWord, corpusgen.CommonWord},
	{"rare word", corpusgen.RareWord, corpusgen.RareWord},
	{"phrase", `"` + corpusgen.Phrase + `"`, corpusgen.Phrase},
	{"Chinese word", corpusgen.ChineseWord, corpusgen.ChineseWord},
	{"prefix", "serial*", "serial"},
}

// searchInProcess opens the index once and runs each query SearchRuns
// times after one warm-up: the latency a long-lived caller sees.
func (s *suite) searchInProcess(ctx context.Context) error {
	a, err := archive.Open(ctx, s.db)
	if err != nil {
		return err
	}
	defer a.Close()
	var all []float64
	for _, q := range queries {
		o := archive.SearchOptions{Query: q.Grove, Limit: 20}
		res, err := a.Search(ctx, o)
		if err != nil {
			return fmt.Errorf("search %s: %w", q.Grove, err)
		}
		var lat []float64
		for i := 0; i < s.cfg.SearchRuns; i++ {
			start := time.Now()
			if _, err := a.Search(ctx, o); err != nil {
				return err
			}
			lat = append(lat, ms(time.Since(start)))
		}
		all = append(all, lat...)
		f := figureOf("search in-process", q.Name+": "+q.Grove, "ms", lat)
		f.Note = hitsNote(res)
		s.add(f)
	}
	s.add(figureOf("search in-process", "all queries", "ms", all))
	return nil
}

func hitsNote(res *archive.SearchResult) string {
	more := ""
	if !res.Exact {
		more = "+"
	}
	return fmt.Sprintf("%d%s hits", res.Total, more)
}

// searchProcess runs `grove search` as a new process per query, and rg and
// rg -i over the same files, warm cache, in the same run.
func (s *suite) searchProcess(ctx context.Context) error {
	rg, rgErr := exec.LookPath("rg")
	runs := max(s.cfg.Runs, 5)
	for _, q := range queries {
		var lat, peak []float64
		for i := 0; i < max(runs, 10)+1; i++ { // the first run warms the cache; 10 runs give a p99
			r, err := runProc(ctx, nil, s.grove, s.groveArgs("search", "--limit", "20", "--", q.Grove))
			if err != nil {
				return err
			}
			if i > 0 {
				lat = append(lat, ms(r.Wall))
				peak = append(peak, float64(r.PeakKB)/1024)
			}
		}
		g := s.add(figureOf("search whole-process", "grove search "+q.Grove, "ms", lat))
		pk := figureOf("search whole-process", "grove search "+q.Grove+": peak RSS", "MB", peak)
		s.add(pk)
		for _, mode := range []struct{ name, flag string }{{"rg", ""}, {"rg -i", "-i"}} {
			name := mode.name + " " + q.Rg
			if rgErr != nil {
				s.skip("search whole-process", name, "rg is not installed (Debian/Ubuntu: apt-get install ripgrep)")
				continue
			}
			var rlat []float64
			for i := 0; i < runs+1; i++ {
				args := []string{"-F", "-c", "--no-messages"}
				if mode.flag != "" {
					args = append(args, mode.flag)
				}
				r, err := runProc(ctx, nil, rg, append(args, "--", q.Rg, s.cfg.Dir), 1)
				if err != nil {
					return err
				}
				if i > 0 {
					rlat = append(rlat, ms(r.Wall))
				}
			}
			f := figureOf("search whole-process", name, "ms", rlat)
			ratio := f.Median / g.Median
			f.Note = fmt.Sprintf("grove search is %.1f× faster", ratio)
			if ratio < 1 {
				f.Note = fmt.Sprintf("%s is %.1f× faster than grove search", mode.name, 1/ratio)
			}
			s.res.Ratios["rg_over_grove/"+mode.name+"/"+q.Name] = ratio
			s.add(f)
		}
	}
	return nil
}
