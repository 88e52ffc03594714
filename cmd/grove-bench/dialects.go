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

// The dialects step (issue 14): one generated corpus per dialect, all of
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
	var piMBps float64
	for _, d := range s.cfg.Dialects {
		mbps, err := s.dialect(ctx, sec, d)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		if d == "pi" {
			piMBps = mbps
		} else if piMBps > 0 {
			s.res.Ratios["cold_index_over_pi/"+d] = mbps / piMBps
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

// dialect measures one dialect and returns its median cold MB/s.
func (s *suite) dialect(ctx context.Context, sec, d string) (float64, error) {
	o := s.dialectOptions(d)
	name := fmt.Sprintf("dialect-%s-%d-seed%d", d, o.Size, o.Seed)
	dir, m, err := s.auxCorpus(ctx, name, o, "--dialect-size")
	if err != nil {
		return 0, err
	}
	db := filepath.Join(s.cfg.Work, name+".db")
	defer removeDB(db)
	var secs, mbps, eps, peak []float64
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(db)
		r, sum, err := s.groveIndex(ctx, db, dir)
		if err != nil {
			return 0, err
		}
		if sum.Files != len(m.Files) || sum.Entries != m.Entries {
			return 0, fmt.Errorf("grove index read %d files and %d entries in %s, the manifest lists %d and %d", sum.Files, sum.Entries, dir, len(m.Files), m.Entries)
		}
		secs = append(secs, seconds(r.Wall))
		mbps = append(mbps, float64(m.Bytes)/1e6/r.Wall.Seconds())
		eps = append(eps, float64(sum.Entries)/r.Wall.Seconds())
		peak = append(peak, float64(r.PeakKB)/1024)
		fmt.Fprintf(s.log, "   %s cold run %d: %.2f s, %.1f MB/s\n", d, i+1, r.Wall.Seconds(), mbps[len(mbps)-1])
	}
	cold := figureOf(sec, d+": cold index throughput", "MB/s", mbps)
	cold.Note = fmt.Sprintf("%s in %d files, %d entries", mb(m.Bytes), len(m.Files), m.Entries)
	if pi, ok := s.byName[sec+"/pi: cold index throughput"]; ok && d != "pi" {
		cold.Note += fmt.Sprintf("; %.2f× pi's", cold.Median/pi.Median)
	}
	s.add(cold)
	s.add(figureOf(sec, d+": cold index wall time", "s", secs))
	s.add(figureOf(sec, d+": cold index entries", "entries/s", eps))
	s.add(figureOf(sec, d+": cold index peak RSS", "MB", peak))
	if d == "pi" || d == "plain" {
		if err := s.dialectBaseline(ctx, sec, d, dir, m, cold.Median); err != nil {
			return 0, err
		}
	}
	if err := s.dialectAppend(ctx, sec, d, dir, db, m); err != nil {
		return 0, err
	}
	return cold.Median, nil
}

// dialectBaseline runs baseline.py on the corpus of d, Runs times.
func (s *suite) dialectBaseline(ctx context.Context, sec, d, dir string, m *corpusgen.Manifest, groveMBps float64) error {
	name := d + ": Python + C SQLite baseline"
	py, err := exec.LookPath("python3")
	if err != nil {
		s.skip(sec, name, "python3 is not installed")
		return nil
	}
	script := filepath.Join(s.cfg.Work, "baseline.py")
	if err := os.WriteFile(script, baselinePy, 0o644); err != nil {
		return err
	}
	db := filepath.Join(s.cfg.Work, "baseline-"+d+".db")
	defer removeDB(db)
	var mbps []float64
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(db)
		r, err := runProc(ctx, nil, py, []string{"-S", script, "--db", db, dir})
		var out struct {
			Seconds float64 `json:"seconds"`
			Entries int64   `json:"entries"`
		}
		if err == nil {
			err = json.Unmarshal(r.Stdout, &out)
		}
		if err != nil {
			s.skip(sec, name, "baseline.py failed: "+err.Error())
			return nil
		}
		if out.Entries != m.Entries {
			s.skip(sec, name, fmt.Sprintf("baseline.py found %d entries, the manifest %d: it does not read this corpus as grove does", out.Entries, m.Entries))
			return nil
		}
		mbps = append(mbps, float64(m.Bytes)/1e6/out.Seconds)
	}
	f := figureOf(sec, name, "MB/s", mbps)
	ratio := groveMBps / f.Median
	s.res.Ratios["grove_index_over_baseline/"+d] = ratio
	f.Note = fmt.Sprintf("grove indexes %s at %.2f× this speed (same run, same files)", d, ratio)
	s.add(f)
	return nil
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
