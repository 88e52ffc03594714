package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/internal/testutil"
)

// longLineCommands are the commands the long-line step runs on its
// session, each a child process with its own peak RSS (SPEC §2.8: peak
// memory stays within a small multiple of the longest line).
var longLineCommands = [][]string{
	{"messages"}, {"--json", "messages"},
	{"context"}, {"--json", "context"}, {"--json", "context", "--llm"},
	{"export"}, {"export", "--format", "html"}, {"export", "--format", "jsonl"},
	{"search", testutil.LongLineWord},
}

// longLineGoal is SPEC §2.8's memory bound for a file whose longest line
// is longest bytes: 3× that line plus 40 MB, in MiB as PeakKB/1024 is.
func longLineGoal(longest int64) float64 { return 3*float64(longest)/(1<<20) + 40 }

// longLineTextCommands are the commands run on the text-only session: the
// ones whose memory a long text drives (SPEC §2.8).
var longLineTextCommands = [][]string{
	{"messages"}, {"context"}, {"export"}, {"export", "--format", "html"}, {"export", "--format", "jsonl"},
}

// longLine generates (once, kept in --work) a pi session with one base64
// image line of LongLine bytes and one text line of half that
// (testutil.WriteLongLineSession, seed 1), indexes it into an index of its
// own Runs times, then runs each of longLineCommands Runs times: peak RSS
// of each against the 3×+40 MB goal. Then the same for a text-only session
// (seed 2: no image, one text line of 3/5 of LongLine, 30 MB at the default
// 50MB), whose figures are named "text-only …": ordinary words cost the
// index far more per byte than base64, which it skips.
func (s *suite) longLine(ctx context.Context) error {
	const sec = "long-line"
	if s.cfg.LongLine == 0 {
		s.skip(sec, "index: peak RSS", "--long-line-size 0")
		return nil
	}
	if err := s.longLineRun(ctx, "", s.cfg.LongLine, s.cfg.LongLine/2, 1, longLineCommands); err != nil {
		return err
	}
	return s.longLineRun(ctx, "text-only ", 0, s.cfg.LongLine*3/5, 2, longLineTextCommands)
}

// longLineRun makes (once) the session of seed with an image line of
// image bytes and a text line of text bytes, and measures index and
// commands on it, each figure's name prefixed with prefix.
func (s *suite) longLineRun(ctx context.Context, prefix string, image, text, seed int64, commands [][]string) error {
	const sec = "long-line"
	dir := filepath.Join(s.cfg.Work, fmt.Sprintf("longline-%d-%d-%d", image, text, seed))
	if seed == 1 {
		dir = filepath.Join(s.cfg.Work, fmt.Sprintf("longline-%d", s.cfg.LongLine)) // as before: kept sessions stay valid
	}
	file := filepath.Join(dir, "long.jsonl")
	if _, err := os.Stat(file); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		tmp := file + ".tmp"
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		err = testutil.WriteLongLineSession(f, image, text, seed)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, file)
		}
		if err != nil {
			os.Remove(tmp)
			return err
		}
	}
	longest, err := longestLine(file)
	if err != nil {
		return err
	}
	goal := longLineGoal(longest)
	if s.longLineGoals == nil {
		s.longLineGoals = map[string]float64{}
	}
	fmt.Fprintf(s.log, "   %s: longest line %s; goal %.0f MB\n", file, mb(longest), goal)
	db := filepath.Join(s.cfg.Work, "longline.db")
	defer removeDB(db)
	args := func(a ...string) []string { return append([]string{"--db", db}, a...) }
	var peak, secs []float64
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(db)
		r, err := runProc(ctx, nil, s.grove, args("index", "--root", dir))
		if err != nil {
			return err
		}
		peak = append(peak, float64(r.PeakKB)/1024)
		secs = append(secs, seconds(r.Wall))
	}
	add := func(name string, peak, secs []float64) {
		f := figureOf(sec, prefix+name+": peak RSS", "MB", peak)
		f.Note = fmt.Sprintf("goal ≤ %.0f MB; %.2f s", goal, figureOf(sec, "", "s", secs).Median)
		s.longLineGoals[f.Name] = goal
		s.add(f)
	}
	add("index", peak, secs)
	id := fmt.Sprintf("longline-%d", seed)
	for _, c := range commands {
		peak, secs = nil, nil
		for i := 0; i < s.cfg.Runs; i++ {
			a := append(append([]string(nil), c...), id)
			if c[0] == "search" {
				a = c
			}
			r, err := runProc(ctx, nil, s.grove, args(a...))
			if err != nil {
				return err
			}
			peak = append(peak, float64(r.PeakKB)/1024)
			secs = append(secs, seconds(r.Wall))
		}
		add(strings.Join(c, " "), peak, secs)
	}
	return nil
}

// longestLine is the length of the longest line of the file, bytes.
func longestLine(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var longest, cur int64
	for {
		n, err := f.Read(buf)
		for _, c := range buf[:n] {
			if c == '\n' {
				longest, cur = max(longest, cur), 0
			} else {
				cur++
			}
		}
		if err != nil {
			return max(longest, cur), nil
		}
	}
}
