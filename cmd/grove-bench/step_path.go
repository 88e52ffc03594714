package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// pathDepths are the path lengths compared between the CTE and PathTo;
// those above pathFewRuns are timed at most 5 times (a run of today's CTE
// at depth 100,000 takes about a second).
var pathDepths = []int{10, 1000, 10000, 100000}

const pathFewRuns = 10000

// paths writes a plain session that is one chain of 100,000 entries (with a
// side branch every 8th entry), indexes it into its own index, and times
// the recursive CTE (index.DB.Path) against the pure PathTo over the
// entries in memory, for the entries at each depth.
func (s *suite) paths(ctx context.Context) error {
	dir := filepath.Join(s.cfg.Work, "chain")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	file := filepath.Join(dir, "chain.jsonl")
	if err := writeChain(file, pathDepths[len(pathDepths)-1]); err != nil {
		return err
	}
	a, err := archive.Open(ctx, filepath.Join(dir, "chain.db"))
	if err != nil {
		return err
	}
	defer a.Close()
	if _, _, _, err := a.IndexFile(ctx, file, true); err != nil {
		return err
	}
	// The CTE itself, below archive: the index the archive just wrote.
	db, err := index.Open(ctx, filepath.Join(dir, "chain.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	sess, err := db.SessionByPath(ctx, file)
	if err != nil || sess == nil {
		return fmt.Errorf("chain session not indexed: %v", err)
	}
	entries, _, err := jsonl.ReadFile(file, jsonl.Strict)
	if err != nil {
		return err
	}
	for _, depth := range pathDepths {
		leaf := chainID(depth)
		var cte, pure []float64
		runs := s.cfg.SearchRuns
		if depth > pathFewRuns {
			runs = min(runs, 5)
		}
		for i := 0; i < runs; i++ {
			start := time.Now()
			p, err := db.Path(ctx, sess.SID, leaf)
			cte = append(cte, ms(time.Since(start)))
			if err != nil || len(p) != depth {
				return fmt.Errorf("CTE path to %s: %d entries, %v; want %d", leaf, len(p), err, depth)
			}
			start = time.Now()
			q, err := archive.PathTo(entries, leaf)
			pure = append(pure, ms(time.Since(start)))
			if err != nil || len(q) != depth {
				return fmt.Errorf("PathTo(%s): %d entries, %v; want %d", leaf, len(q), err, depth)
			}
		}
		c := figureOf("path", fmt.Sprintf("CTE path, depth %d", depth), "ms", cte)
		p := figureOf("path", fmt.Sprintf("PathTo in memory, depth %d", depth), "ms", pure)
		if p.Median > 0 {
			c.Note = fmt.Sprintf("%.1f× PathTo", c.Median/p.Median)
			s.res.Ratios[fmt.Sprintf("cte_over_pathto/%d", depth)] = c.Median / p.Median
		}
		s.add(c)
		s.add(p)
	}
	return nil
}

func chainID(i int) string { return fmt.Sprintf("c%05d", i) }

// writeChain writes the chain session of paths: entries c00001..cNNNNN,
// each the child of the one before, with a side entry off every 8th.
func writeChain(file string, depth int) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	ts := int64(1767225600000)
	for i := 1; i <= depth; i++ {
		parent := "null"
		if i > 1 {
			parent = `"` + chainID(i-1) + `"`
		}
		ts += 1000
		fmt.Fprintf(w, `{"id":"%s","parentId":%s,"timestamp":%d,"type":"message","message":{"role":"user","content":"step %d of the chain"}}`+"\n", chainID(i), parent, ts, i)
		if i%8 == 0 {
			fmt.Fprintf(w, `{"id":"side%05d","parentId":"%s","timestamp":%d,"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"a side branch"}]}}`+"\n", i, chainID(i), ts)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
