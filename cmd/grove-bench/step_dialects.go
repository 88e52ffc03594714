package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// The dialects step (SPEC §3): one generated corpus per dialect, all of
// the same size (--dialect-size), each indexed cold into its own index
// Runs times; then --dialect-append-lines lines of that dialect appended
// to its largest healthy session and the refresh timed, Runs times. The
// C SQLite baseline (baseline.py) runs on the pi and plain corpora, the
// dialects it reads, in the same run.

// benchDialects are the dialects --dialects accepts, in grove's order.
var benchDialects = []string{"pi", "plain", "messages", "claude", "codex"}

// dialectLineBytes is the length of each appended line, LF included.
const dialectLineBytes = 1024

func (s *suite) dialects(ctx context.Context) error {
	const sec = "dialects"
	if s.cfg.DialectSize == 0 {
		s.skip(sec, "cold index per dialect", "--dialect-size 0")
		return nil
	}
	type corpus struct {
		d, dir, db            string
		m                     *corpusgen.Manifest
		secs, mbps, eps, peak []float64
		baseline              []float64
		baselineSkip          string
	}
	var cs []*corpus
	for _, d := range s.cfg.Dialects {
		o := s.dialectOptions(d)
		name := fmt.Sprintf("dialect-%s-%d-seed%d", d, o.Size, o.Seed)
		dir, m, err := s.auxCorpus(ctx, name, o, "--dialect-size")
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		c := &corpus{d: d, dir: dir, db: filepath.Join(s.cfg.Work, name+".db"), m: m}
		defer removeDB(c.db)
		cs = append(cs, c)
	}
	// Runs go round the dialects (pi, plain, ..., pi, plain, ...) so that
	// a change in the machine's load reaches every dialect alike.
	for i := 0; i < s.cfg.Runs; i++ {
		for _, c := range cs {
			removeDB(c.db)
			r, sum, err := s.groveIndex(ctx, c.db, c.dir)
			if err != nil {
				return fmt.Errorf("%s: %w", c.d, err)
			}
			if sum.Files != len(c.m.Files) || sum.Entries != c.m.Entries {
				return fmt.Errorf("%s: grove index read %d files and %d entries in %s, the manifest lists %d and %d",
					c.d, sum.Files, sum.Entries, c.dir, len(c.m.Files), c.m.Entries)
			}
			c.secs = append(c.secs, seconds(r.Wall))
			c.mbps = append(c.mbps, float64(c.m.Bytes)/1e6/r.Wall.Seconds())
			c.eps = append(c.eps, float64(sum.Entries)/r.Wall.Seconds())
			c.peak = append(c.peak, float64(r.PeakKB)/1024)
			fmt.Fprintf(s.log, "   %s cold run %d: %.2f s, %.1f MB/s\n", c.d, i+1, r.Wall.Seconds(), c.mbps[len(c.mbps)-1])
		}
		for _, c := range cs {
			if c.d != "pi" && c.d != "plain" || c.baselineSkip != "" {
				continue
			}
			mbps, skip, err := s.baselineRun(ctx, c.d, c.dir, c.m)
			if err != nil {
				return err
			}
			c.baselineSkip = skip
			c.baseline = append(c.baseline, mbps)
			if skip == "" {
				fmt.Fprintf(s.log, "   %s baseline run %d: %.1f MB/s\n", c.d, i+1, mbps)
			}
		}
	}
	var pi *Figure
	for _, c := range cs {
		cold := figureOf(sec, c.d+": cold index throughput", "MB/s", c.mbps)
		cold.Note = fmt.Sprintf("%s in %d files, %d entries", mb(c.m.Bytes), len(c.m.Files), c.m.Entries)
		if pi != nil {
			ratio := cold.Median / pi.Median
			s.res.Ratios["cold_index_over_pi/"+c.d] = ratio
			cold.Note += fmt.Sprintf("; %.2f× pi's", ratio)
		}
		s.add(cold)
		if c.d == "pi" {
			pi = &cold
		}
		s.add(figureOf(sec, c.d+": cold index wall time", "s", c.secs))
		s.add(figureOf(sec, c.d+": cold index entries", "entries/s", c.eps))
		s.add(figureOf(sec, c.d+": cold index peak RSS", "MB", c.peak))
		if c.d == "pi" || c.d == "plain" {
			name := c.d + ": Python + C SQLite baseline"
			if c.baselineSkip != "" {
				s.skip(sec, name, c.baselineSkip)
			} else {
				f := figureOf(sec, name, "MB/s", c.baseline)
				ratio := cold.Median / f.Median
				s.res.Ratios["grove_index_over_baseline/"+c.d] = ratio
				f.Note = fmt.Sprintf("grove indexes %s at %.2f× this speed (same run, same files)", c.d, ratio)
				s.add(f)
			}
		}
	}
	for _, c := range cs {
		if err := s.dialectAppend(ctx, sec, c.d, c.dir, c.db, c.m); err != nil {
			return fmt.Errorf("%s: %w", c.d, err)
		}
	}
	return nil
}

// dialectOptions are the step corpus options for dialect d: the defaults,
// the run's seed and Chinese share, every session of d (no forks outside
// pi, no plain in the pi corpus).
func (s *suite) dialectOptions(d string) corpusgen.Options {
	o := s.auxOptions()
	o.Size = s.cfg.DialectSize
	o.SubagentRate = 0.2
	if err := o.SetDialects(d); err != nil {
		panic(err) // d is one of benchDialects
	}
	return o
}

// baselineRun runs baseline.py once on the corpus of d and returns its
// MB/s, or why it could not be measured.
func (s *suite) baselineRun(ctx context.Context, d, dir string, m *corpusgen.Manifest) (float64, string, error) {
	out, skip, err := s.baselineOnce(ctx, dir, filepath.Join(s.cfg.Work, "baseline-"+d+".db"))
	switch {
	case err != nil || skip != "":
		return 0, skip, err
	case out.Entries != m.Entries:
		return 0, fmt.Sprintf("baseline.py found %d entries, the manifest %d: it does not read this corpus as grove does", out.Entries, m.Entries), nil
	}
	return float64(m.Bytes) / 1e6 / out.Seconds, "", nil
}

// dialectAppend appends AppendLines lines of d, 1 KB each, to the largest
// healthy session of the corpus and times the refresh that reads them,
// Runs times (the lines accumulate); the file is cut back afterwards.
func (s *suite) dialectAppend(ctx context.Context, sec, d, dir, db string, m *corpusgen.Manifest) error {
	var big *corpusgen.File
	for i := range m.Files {
		f := &m.Files[i]
		if f.Damage == "" && !f.Subagent && f.ActiveLeaf != "" && (big == nil || f.Bytes > big.Bytes) {
			big = f
		}
	}
	label := fmt.Sprintf("%s: refresh after %d appended lines", d, s.cfg.AppendLines)
	if big == nil {
		s.skip(sec, label, "no healthy session in the corpus")
		return nil
	}
	file := filepath.Join(dir, filepath.FromSlash(big.Path))
	restore, err := keepLength(file, big.Bytes)
	if err != nil {
		return err
	}
	defer restore()
	if _, _, err := s.groveIndex(ctx, db, dir); err != nil { // the index of the file as generated
		return err
	}
	parent, line := big.ActiveLeaf, big.Lines
	var lat, read []float64
	appended, reindexed := 0, 0
	for i := 0; i < s.cfg.Runs; i++ {
		var b strings.Builder
		for j := 0; j < s.cfg.AppendLines; j++ {
			line++
			var l string
			l, parent = dialectLine(d, big, parent, line, i*s.cfg.AppendLines+j)
			b.WriteString(l)
		}
		if err := appendLine(file, b.String()); err != nil {
			return err
		}
		r, sum, err := s.groveIndex(ctx, db, dir)
		if err != nil {
			return err
		}
		lat = append(lat, ms(r.Wall))
		appended, reindexed = appended+sum.Appended, reindexed+sum.Indexed
		if sum.BytesRead != nil {
			read = append(read, float64(*sum.BytesRead))
		}
	}
	f := figureOf(sec, label, "ms", lat)
	f.Note = fmt.Sprintf("to a %s session; grove said %d appended, %d indexed", mb(big.Bytes), appended, reindexed)
	if len(read) == len(lat) {
		f.Note += fmt.Sprintf("; read %.0f bytes (median)", figureOf(sec, "", "", read).Median)
	}
	s.add(f)
	return nil
}

// dialectLine returns one line of d of exactly dialectLineBytes bytes
// with its LF, a user message child of parent (ignored where ids are
// L<line>: line is the physical line it lands on), and the id of the new
// entry. k numbers the lines of the run, for ids and times.
func dialectLine(d string, f *corpusgen.File, parent string, line, k int) (string, string) {
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(k) * time.Second)
	iso := at.Format("2006-01-02T15:04:05.000Z")
	var head, tail, id string
	switch d {
	case "pi":
		id = fmt.Sprintf("gd%06d", k)
		head = fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"`, id, parent, iso)
		tail = fmt.Sprintf(`"}],"timestamp":%d}}`, at.UnixMilli())
	case "plain":
		id = fmt.Sprintf("gd%06d", k)
		head = fmt.Sprintf(`{"id":%q,"parentId":%q,"timestamp":%d,"type":"message","message":{"role":"user","content":"`, id, parent, at.UnixMilli())
		tail = `"}}`
	case "claude":
		id = fmt.Sprintf("0000%04x-0000-4000-8000-%012x", k>>16, k)
		head = fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.1.78","gitBranch":"main","type":"user","message":{"role":"user","content":"`,
			parent, f.Workspace, f.Session)
		tail = fmt.Sprintf(`"},"uuid":%q,"timestamp":%q}`, id, iso)
	case "codex":
		id = fmt.Sprintf("L%d", line)
		head = fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"`, iso)
		tail = `"}]}}`
	default: // messages
		id = fmt.Sprintf("L%d", line)
		head = `{"role":"user","content":"`
		tail = `"}`
	}
	pad := dialectLineBytes - 1 - len(head) - len(tail)
	text := strings.Repeat("appended by grove-bench ", pad/24+1)[:pad]
	return head + text + tail + "\n", id
}
