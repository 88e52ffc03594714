package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// shapes are the tree shapes of the shapes step.
var shapes = []string{"comb", "star", "chain"}

// writeShape writes a pi version 3 session of n entries (user messages)
// in the tree shape: comb, a spine with one leaf off each spine entry
// (n/2 leaves, the deepest path n/2+1 long); star, n-1 children of one
// root; chain, one path of n.
func writeShape(file, shape string, n int) error {
	var b strings.Builder
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := func(i int) string { return fmt.Sprintf("%08x", i+1) }
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":"00000000-0000-4000-8000-0000000%05x","timestamp":%q,"cwd":"/bench/shapes"}`+"\n",
		len(shape)*7919%0xfffff, t0.Format("2006-01-02T15:04:05.000Z"))
	for i := 0; i < n; i++ {
		parent := "null"
		switch {
		case i == 0:
		case shape == "star":
			parent = `"` + id(0) + `"`
		case shape == "chain":
			parent = `"` + id(i-1) + `"`
		case i%2 == 1: // comb: a leaf off spine entry i-1
			parent = `"` + id(i-1) + `"`
		default: // comb: the next spine entry
			parent = `"` + id(i-2) + `"`
		}
		at := t0.Add(time.Duration(i+1) * time.Millisecond)
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"%s entry %d"}],"timestamp":%d}}`+"\n",
			id(i), parent, at.Format("2006-01-02T15:04:05.000Z"), shape, i, at.UnixMilli())
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// shapesStep writes a comb, a star and a chain session of ShapeEntries
// entries each (kept in WORK/shapes-N), indexes them into an index of
// their own, and runs `grove verify --session` on each, once, whole
// process: seconds and peak RSS. A verify still
// running after VerifyTimeout is killed and reported at the timeout.
func (s *suite) shapesStep(ctx context.Context) error {
	const sec = "shapes"
	n := s.cfg.ShapeEntries
	dir := filepath.Join(s.cfg.Work, fmt.Sprintf("shapes-%d", n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, sh := range shapes {
		file := filepath.Join(dir, sh+".jsonl")
		if _, err := os.Stat(file); err == nil {
			continue
		}
		if err := writeShape(file+".tmp", sh, n); err != nil {
			return err
		}
		if err := os.Rename(file+".tmp", file); err != nil {
			return err
		}
	}
	db := filepath.Join(s.cfg.Work, "shapes.db")
	removeDB(db)
	defer removeDB(db)
	r, sum, err := s.groveIndex(ctx, db, dir)
	if err != nil {
		return err
	}
	if sum.Entries != int64(len(shapes)*n) {
		return fmt.Errorf("grove index read %d entries in %s, want %d", sum.Entries, dir, len(shapes)*n)
	}
	f := figureOf(sec, "cold index of the three sessions", "s", []float64{seconds(r.Wall)})
	f.Note = fmt.Sprintf("%d entries each", n)
	s.add(f)
	for _, sh := range shapes {
		file := filepath.Join(dir, sh+".jsonl")
		vctx, cancel := context.WithTimeout(ctx, s.cfg.VerifyTimeout)
		r, err := runProc(vctx, nil, s.grove, []string{"--db", db, "--json", "verify", "--session", file}, 1)
		timedOut := vctx.Err() == context.DeadlineExceeded
		cancel()
		name := fmt.Sprintf("verify %s of %d entries", sh, n)
		if timedOut {
			f := figureOf(sec, name, "s", []float64{s.cfg.VerifyTimeout.Seconds()})
			f.Note = fmt.Sprintf("did not finish: killed after %s", s.cfg.VerifyTimeout)
			s.add(f)
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		var rep struct{ Sessions, Leaves, Mismatches, Stale int }
		if err := json.Unmarshal(r.Stdout, &rep); err != nil {
			return fmt.Errorf("grove verify output: %w: %.200s", err, r.Stdout)
		}
		if rep.Mismatches > 0 || rep.Stale > 0 || rep.Sessions != 1 {
			return fmt.Errorf("grove verify --session %s: %+v, want 1 session without mismatches", file, rep)
		}
		f := figureOf(sec, name, "s", []float64{seconds(r.Wall)})
		f.Note = fmt.Sprintf("%d leaves; peak RSS %.0f MB", rep.Leaves, float64(r.PeakKB)/1024)
		s.add(f)
	}
	return nil
}
