package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// structureReady runs a cold `grove index` of the main corpus Runs times
// and, from this process while it runs, polls `grove sessions --json`
// until it lists every session of the corpus and `leaves --session` and
// `path` answer for its largest session: the time at which listings
// answer, and its share of the whole build. A poll that finds no index
// yet, or the index busy, is "not ready", never a failure. The polls cost
// the indexer CPU on a small machine: their count is in the note.
func (s *suite) structureReady(ctx context.Context) error {
	const sec = "ready"
	want := len(s.m.Files)
	probe := s.res.Corpus.BigFile
	if probe == "" {
		probe = s.m.Files[0].Path
	}
	probe = filepath.Join(s.cfg.Dir, filepath.FromSlash(probe))
	db := filepath.Join(s.cfg.Work, "ready.db")
	defer removeDB(db)
	args := func(a ...string) []string { return append([]string{"--db", db, "--json"}, a...) }
	var ready, full, share []float64
	polls := 0
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(db)
		type result struct {
			r   procRun
			err error
		}
		done := make(chan result, 1)
		start := time.Now()
		go func() {
			r, err := runProc(ctx, nil, s.grove, args("index", "--root", s.cfg.Dir))
			done <- result{r, err}
		}()
		var at time.Duration
		var res *result
		for at == 0 {
			select {
			case r := <-done:
				res = &r
			default:
			}
			finished := res != nil
			polls++
			if n, ok := s.listed(ctx, args("sessions")); ok && n >= want && s.answers(ctx, args("leaves", "--session", probe)) && s.answers(ctx, args("path", probe)) {
				at = time.Since(start)
				break
			}
			if finished {
				if res.err != nil {
					return res.err
				}
				n, _ := s.listed(ctx, args("sessions"))
				return fmt.Errorf("after the cold index, grove sessions lists %d sessions, the corpus has %d (or leaves or path do not answer for %s)", n, want, probe)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if res == nil {
			r := <-done
			res = &r
		}
		if res.err != nil {
			return res.err
		}
		at = min(at, res.r.Wall)
		ready = append(ready, seconds(at))
		full = append(full, seconds(res.r.Wall))
		share = append(share, at.Seconds()/res.r.Wall.Seconds())
		fmt.Fprintf(s.log, "   run %d: listings answer at %.2f s of %.2f s (%.2f)\n", i+1, at.Seconds(), res.r.Wall.Seconds(), share[len(share)-1])
	}
	f := figureOf(sec, "structure ready: listings answer", "s", ready)
	f.Note = fmt.Sprintf("sessions lists all %d, leaves and path answer for the largest; %d polls in %d runs", want, polls, len(ready))
	s.add(f)
	s.add(figureOf(sec, "structure ready: full cold index", "s", full))
	sh := figureOf(sec, "structure ready ÷ full build", "×", share)
	s.res.Ratios["structure_ready_over_build"] = sh.Median
	s.add(sh)
	return nil
}

// listed runs a grove listing and returns how many sessions it lists;
// false when grove failed (no index yet, the index busy).
func (s *suite) listed(ctx context.Context, args []string) (int, bool) {
	r, err := runProc(ctx, nil, s.grove, args)
	if err != nil {
		return 0, false
	}
	var out struct{ Sessions []json.RawMessage }
	if json.Unmarshal(r.Stdout, &out) != nil {
		return 0, false
	}
	return len(out.Sessions), true
}

// answers reports whether a grove command succeeded.
func (s *suite) answers(ctx context.Context, args []string) bool {
	_, err := runProc(ctx, nil, s.grove, args)
	return err == nil
}
