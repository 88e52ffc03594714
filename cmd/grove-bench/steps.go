package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

func appendLine(file, line string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// lastEntryID returns the id of the last committed line of file, reading
// backwards from the end in growing windows.
func lastEntryID(file string, size int64) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for window := int64(64 << 10); ; window *= 4 {
		start := max(0, size-window)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil {
			return "", err
		}
		buf = bytes.TrimRight(buf, "\n")
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 || start == 0 {
			var e struct{ ID string }
			if err := json.Unmarshal(buf[i+1:], &e); err != nil || e.ID == "" {
				return "", fmt.Errorf("%s: last line has no id: %v", file, err)
			}
			return e.ID, nil
		}
	}
}

//go:embed baseline.py
var baselinePy []byte

// baseline runs baseline.py: Python's json and C SQLite doing what grove's
// indexer does (parse, store entries, put the same search text in FTS5).
func (s *suite) baseline(ctx context.Context) error {
	py, err := exec.LookPath("python3")
	if err != nil {
		s.skip("baseline", "C SQLite FTS5 baseline (python3)", "python3 is not installed")
		return nil
	}
	script := filepath.Join(s.cfg.Work, "baseline.py")
	if err := os.WriteFile(script, baselinePy, 0o644); err != nil {
		return err
	}
	db := filepath.Join(s.cfg.Work, "baseline.db")
	var secs, mbps, peak []float64
	var out struct {
		Seconds           float64 `json:"seconds"` // indexing only, Python's start-up excluded
		DBBytes           int64   `json:"db_bytes"`
		SQLiteVersion     string  `json:"sqlite_version"`
		ContentlessDelete bool    `json:"contentless_delete"`
	}
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(db)
		// -S: no site packages to import; the script needs only the
		// standard library.
		r, err := runProc(ctx, nil, py, []string{"-S", script, "--db", db, s.cfg.Dir})
		if err == nil {
			err = json.Unmarshal(r.Stdout, &out)
		}
		if err != nil {
			s.skip("baseline", "C SQLite FTS5 baseline (python3)", "baseline.py failed: "+err.Error())
			return nil
		}
		secs = append(secs, out.Seconds)
		mbps = append(mbps, float64(s.m.Bytes)/1e6/out.Seconds)
		peak = append(peak, float64(r.PeakKB)/1024)
	}
	removeDB(db)
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

// appendable readies the pi session file for entries to be appended: it
// returns the id of its last entry (the first new entry's parent), its
// size in bytes and a function that cuts the file back to its length and mtime, so the corpus
// can be reused.
func appendable(file string) (parent string, size int64, restore func(), err error) {
	fi, err := os.Stat(file)
	if err != nil {
		return "", 0, nil, err
	}
	restore = func() {
		os.Truncate(file, fi.Size())
		os.Chtimes(file, fi.ModTime(), fi.ModTime())
	}
	if parent, err = lastEntryID(file, fi.Size()); err != nil {
		return "", 0, nil, err
	}
	return parent, fi.Size(), restore, nil
}
