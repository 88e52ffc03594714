package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// Issue 16's measurements ("Fast at every size"), each a section of its
// own: the cold index and the C SQLite baseline at several corpus sizes
// (sizes), the time at which listings answer during a cold index (ready),
// verify on generated comb, star and chain sessions (shapes), the export of
// one 60 MB session (export) and the index dump of two builds compared
// (dump). The in-process path at depth 100,000 is in the path section.

// indexRSSGoal is issue 16's bound on the cold index's peak RSS, MB.
const indexRSSGoal = 160

// sizeCorpus returns the directory and manifest of the corpus of size
// bytes the sizes step measures: the main corpus when size is --size (and
// there is no big session), else WORK/corpus-SIZE-seedN made with the main
// corpus's options.
func (s *suite) sizeCorpus(ctx context.Context, size int64) (string, *corpusgen.Manifest, error) {
	o := s.cfg.Corpus
	if size == o.Size && o.BigSession == 0 {
		if s.m != nil {
			return s.cfg.Dir, s.m, nil
		}
		m, err := ensureCorpus(ctx, s.cfg.Dir, o, s.cfg.ExplicitDir, s.log)
		return s.cfg.Dir, m, err
	}
	o.Size, o.BigSession = size, 0
	return s.auxCorpus(ctx, fmt.Sprintf("corpus-%d-seed%d", size, o.Seed), o, "--index-sizes")
}

// indexSizes measures, at each of IndexSizes, the cold `grove index` of a
// generated corpus (seed --seed) into an empty index and baseline.py on
// the same files, Runs times each, alternating grove and the baseline so
// that a change in the machine's load reaches both alike: medians of wall
// time, MB/s and peak RSS, and grove's MB/s ÷ the baseline's.
func (s *suite) indexSizes(ctx context.Context) error {
	const sec = "sizes"
	if len(s.cfg.IndexSizes) == 0 {
		s.skip(sec, "cold index at each size", "--index-sizes not given (the index and baseline sections measure --size)")
		return nil
	}
	for _, size := range s.cfg.IndexSizes {
		dir, m, err := s.sizeCorpus(ctx, size)
		if err != nil {
			return err
		}
		label := corpusgen.FormatSize(size)
		db := filepath.Join(s.cfg.Work, fmt.Sprintf("sizes-%d.db", size))
		bdb := filepath.Join(s.cfg.Work, fmt.Sprintf("sizes-%d-baseline.db", size))
		var secs, mbps, peak, bsecs, bmbps, bpeak []float64
		skip := ""
		for i := 0; i < s.cfg.Runs; i++ {
			removeDB(db)
			r, sum, err := s.groveIndex(ctx, db, dir)
			if err != nil {
				return err
			}
			if sum.Files != len(m.Files) {
				return fmt.Errorf("%s: grove index saw %d files in %s, the manifest lists %d", label, sum.Files, dir, len(m.Files))
			}
			secs = append(secs, seconds(r.Wall))
			mbps = append(mbps, float64(m.Bytes)/1e6/r.Wall.Seconds())
			peak = append(peak, float64(r.PeakKB)/1024)
			fmt.Fprintf(s.log, "   %s grove run %d: %.2f s, %.1f MB/s\n", label, i+1, r.Wall.Seconds(), mbps[len(mbps)-1])
			if skip != "" {
				continue
			}
			var b baselineOut
			b, skip, err = s.baselineOnce(ctx, dir, bdb)
			if err != nil {
				return err
			}
			if skip == "" {
				bsecs = append(bsecs, b.Seconds)
				bmbps = append(bmbps, float64(m.Bytes)/1e6/b.Seconds)
				bpeak = append(bpeak, float64(b.PeakKB)/1024)
				fmt.Fprintf(s.log, "   %s baseline run %d: %.2f s, %.1f MB/s\n", label, i+1, b.Seconds, bmbps[len(bmbps)-1])
			}
		}
		removeDB(db)
		removeDB(bdb)
		g := figureOf(sec, label+": cold index throughput", "MB/s", mbps)
		g.Note = fmt.Sprintf("%s in %d files, %d entries", mb(m.Bytes), len(m.Files), m.Entries)
		s.add(g)
		s.add(figureOf(sec, label+": cold index wall time", "s", secs))
		s.add(figureOf(sec, label+": cold index peak RSS", "MB", peak))
		name := label + ": Python + C SQLite baseline throughput"
		if skip != "" {
			s.skip(sec, name, skip)
			continue
		}
		b := figureOf(sec, name, "MB/s", bmbps)
		ratio := g.Median / b.Median
		s.res.Ratios["grove_index_over_baseline/"+label] = ratio
		b.Note = fmt.Sprintf("grove indexes at %.2f× this speed (runs alternated with grove's)", ratio)
		s.add(b)
		s.add(figureOf(sec, label+": baseline indexing time", "s", bsecs))
		s.add(figureOf(sec, label+": baseline peak RSS", "MB", bpeak))
	}
	return nil
}

// baselineOut is what one run of baseline.py reports, with its peak RSS.
type baselineOut struct {
	Seconds float64 `json:"seconds"` // indexing only, Python's start-up excluded
	Entries int64   `json:"entries"`
	PeakKB  int64   `json:"-"`
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

// structureReady runs a cold `grove index` of the main corpus Runs times
// and, from this process while it runs, polls `grove sessions --json`
// until it lists every session of the corpus and `leaves --session` and
// `path` answer for its largest session: the time at which listings
// answer (issue 16: ≤ 0.5 of the full build). A poll that finds no index
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
// process: seconds and peak RSS (issue 16: in seconds). A verify still
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

// exportFormats are the exports the export step measures: name, the
// arguments after `export`, and whether --out names a directory.
var exportFormats = []struct {
	name string
	args []string
	dir  bool
}{
	{"md", []string{"--format", "md"}, false},
	{"html", []string{"--format", "html"}, false},
	{"jsonl", []string{"--format", "jsonl"}, true},
}

// exportStep generates (once, kept in WORK) one pi session of ExportSize
// bytes of ordinary turns (no image), indexes it into an index of its own,
// and runs `grove export` of its active path as md, html (--out FILE) and
// jsonl (--out DIR), Runs times each: time and peak RSS (issue 16: peak
// RSS ≤ 100 MB for 60 MB).
func (s *suite) exportStep(ctx context.Context) error {
	const sec = "export"
	o := s.auxOptions()
	o.Size, o.BigSession, o.ImageRate = 0, s.cfg.ExportSize, 0
	dir, m, err := s.auxCorpus(ctx, fmt.Sprintf("export-%d-seed%d", s.cfg.ExportSize, o.Seed), o, "--export-size")
	if err != nil {
		return err
	}
	gen := m.Files[0]
	file := filepath.Join(dir, filepath.FromSlash(gen.Path))
	db := filepath.Join(s.cfg.Work, "export.db")
	removeDB(db)
	defer removeDB(db)
	if _, _, err := s.groveIndex(ctx, db, dir); err != nil {
		return err
	}
	out := filepath.Join(s.cfg.Work, "export-out")
	defer os.RemoveAll(out)
	label := corpusgen.FormatSize(gen.Bytes) + " session"
	for _, ef := range exportFormats {
		var secs, peak []float64
		var size int64
		for i := 0; i < s.cfg.Runs; i++ {
			os.RemoveAll(out)
			target := out
			if !ef.dir {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return err
				}
				target = filepath.Join(out, "export."+ef.name)
			}
			args := append([]string{"--db", db, "--json", "export"}, ef.args...)
			r, err := runProc(ctx, nil, s.grove, append(args, "--out", target, "--", file))
			if err != nil {
				return err
			}
			secs = append(secs, seconds(r.Wall))
			peak = append(peak, float64(r.PeakKB)/1024)
			size = dirBytes(out)
		}
		f := figureOf(sec, label+": export --format "+ef.name+": peak RSS", "MB", peak)
		f.Note = fmt.Sprintf("%d entries; wrote %s", gen.Entries, mb(size))
		s.add(f)
		s.add(figureOf(sec, label+": export --format "+ef.name+": wall time", "s", secs))
	}
	return nil
}

// dirBytes is the size of the files under path (a file or a directory).
func dirBytes(path string) int64 {
	var n int64
	filepath.Walk(path, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// dumpStep compares index dumps (see dumpIndex) of the main corpus built
// three ways: a cold index by the reference grove (--dump-grove; the grove
// measured when not given), a cold index by the grove measured, and a cold
// index by the grove measured followed by `grove rebuild`. Each comparison
// is a figure of the dump lines that differ (0 when equal) and a target.
// The dumps are compared as they are made, never written; the index files
// are kept in WORK when they differ (grove-bench dump A B shows how).
func (s *suite) dumpStep(ctx context.Context) error {
	const sec = "dump"
	ref := s.cfg.DumpGrove
	refName := "this grove"
	if ref == "" {
		ref = s.grove
	} else {
		refName = ref
	}
	refDB := filepath.Join(s.cfg.Work, "dump-ref.db")
	newDB := filepath.Join(s.cfg.Work, "dump-new.db")
	rebuiltDB := filepath.Join(s.cfg.Work, "dump-rebuilt.db")
	build := func(grove, db string, then ...string) error {
		removeDB(db)
		_, err := runProc(ctx, nil, grove, []string{"--db", db, "--json", "index", "--root", s.cfg.Dir})
		if err == nil && len(then) > 0 {
			_, err = runProc(ctx, nil, grove, append([]string{"--db", db, "--json"}, then...))
		}
		return err
	}
	if err := build(ref, refDB); err != nil {
		return fmt.Errorf("reference grove: %w", err)
	}
	if err := build(s.grove, newDB); err != nil {
		return err
	}
	if err := build(s.grove, rebuiltDB, "rebuild"); err != nil {
		return err
	}
	start := time.Now()
	var n countWriter
	if err := dumpIndex(ctx, refDB, &n, s.cfg.DumpOmit); err != nil {
		return err
	}
	f := figureOf(sec, "dump of one index", "s", []float64{time.Since(start).Seconds()})
	f.Note = fmt.Sprintf("%s of dump for %s of JSONL", mb(n.n), mb(s.m.Bytes))
	s.add(f)
	allEqual := true
	for _, c := range []struct{ what, a, b string }{
		{"cold index by " + refName + " = cold index by the grove measured", refDB, newDB},
		{"cold index = cold index then grove rebuild", newDB, rebuiltDB},
	} {
		d, err := compareIndexes(ctx, c.a, c.b, s.cfg.DumpOmit)
		if err != nil {
			return err
		}
		f := figureOf(sec, c.what, "differing lines", []float64{float64(d.Difference)})
		f.Note = d.String()
		if !d.Equal {
			allEqual = false
			f.Note += fmt.Sprintf(" (indexes kept: grove-bench dump %s %s)", c.a, c.b)
		}
		s.add(f)
		s.res.Targets = append(s.res.Targets, Target{Issue: "16", What: "index dump: " + c.what, Goal: "equal", Value: float64(d.Difference), Unit: "differing lines", Met: d.Equal,
			Missed: fmt.Sprintf("%d lines differ, first at line %d", d.Difference, d.Line)})
	}
	if allEqual {
		for _, db := range []string{refDB, newDB, rebuiltDB} {
			removeDB(db)
		}
	}
	return nil
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// issue16Targets checks issue 16's goals on the figures this run has.
func (s *suite) issue16Targets(add func(issue, what, goal string, value float64, unit string, met bool, missed string)) {
	ratio := func(what string, r float64) {
		add("16", what, "≥ 2.0× the baseline's MB/s", r, "×", r >= 2, fmt.Sprintf("%.2f× (%.2f× instead of 2.0×)", 2/r, r))
	}
	rss := func(what string, f Figure, goal float64) {
		add("16", what, fmt.Sprintf("≤ %.0f MB", goal), f.Max, "MB", f.Max <= goal, fmt.Sprintf("%.2f×", f.Max/goal))
	}
	if r, ok := s.res.Ratios["grove_index_over_baseline"]; ok {
		ratio(fmt.Sprintf("cold index of the %s corpus vs Python + C SQLite", mb(s.m.Bytes)), r)
	}
	if f, ok := s.byName["index/cold index: peak RSS"]; ok {
		rss(fmt.Sprintf("cold index of the %s corpus: peak RSS (largest run)", mb(s.m.Bytes)), f, indexRSSGoal)
	}
	for _, size := range s.cfg.IndexSizes {
		label := corpusgen.FormatSize(size)
		if r, ok := s.res.Ratios["grove_index_over_baseline/"+label]; ok {
			ratio("cold index at "+label+" vs Python + C SQLite (runs alternated)", r)
		}
		if f, ok := s.byName["sizes/"+label+": cold index peak RSS"]; ok {
			rss("cold index at "+label+": peak RSS (largest run)", f, indexRSSGoal)
		}
	}
	if f, ok := s.byName["ready/structure ready ÷ full build"]; ok {
		add("16", "structure ready (listings answer) ÷ the full cold index", "≤ 0.5", f.Median, "×", f.Median <= 0.5, fmt.Sprintf("%.2f×", f.Median/0.5))
	}
	if c, ok := s.byName["path/CTE path, depth 10000"]; ok {
		add("16", "in-process path at depth 10,000", "≤ 10 ms", c.Median, "ms", c.Median <= 10, fmt.Sprintf("%.1f×", c.Median/10))
		if r, ok := s.res.Ratios["cte_over_pathto/10000"]; ok {
			add("16", "in-process path at depth 10,000 ÷ PathTo over the file's entries", "< 1.0", r, "×", r < 1, fmt.Sprintf("%.1f×", r))
		}
	}
	if c, ok := s.byName["path/CTE path, depth 100000"]; ok {
		add("16", "in-process path at depth 100,000", "≤ 100 ms", c.Median, "ms", c.Median <= 100, fmt.Sprintf("%.1f×", c.Median/100))
	}
	v, okV := s.byName["verify/verify every leaf (CTE = PathTo)"]
	c, okC := s.byName["index/cold index: wall time"]
	if okV && okC && c.Median > 0 {
		r := v.Median / c.Median
		add("16", fmt.Sprintf("verify of the %s corpus ÷ its cold index", mb(s.m.Bytes)), "≤ 1.0", r, "×", r <= 1, fmt.Sprintf("%.1f×", r))
	}
	for _, sh := range shapes {
		if f, ok := s.byName[fmt.Sprintf("shapes/verify %s of %d entries", sh, s.cfg.ShapeEntries)]; ok {
			missed := fmt.Sprintf("%.1f×", f.Median/10)
			if strings.HasPrefix(f.Note, "did not finish") {
				missed = fmt.Sprintf("at least %.1f× (killed at the timeout)", f.Median/10)
			}
			add("16", fmt.Sprintf("verify of a %d-entry %s", s.cfg.ShapeEntries, sh), "≤ 10 s (in seconds)", f.Median, "s", f.Median <= 10, missed)
		}
	}
	for _, f := range s.res.Figures {
		if f.Section == "export" && f.Skipped == "" && strings.HasSuffix(f.Name, ": peak RSS") {
			rss("export of one "+strings.TrimSuffix(f.Name, ": peak RSS")+" (largest run)", f, 100)
		}
	}
}
