package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

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
// jsonl (--out DIR), Runs times each: time and peak RSS (an export
// streams: its memory does not grow with the session).
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
