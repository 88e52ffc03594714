package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// ensureCorpus returns the manifest of the corpus in dir, generating it
// when dir holds no manifest made with the same options by this version of
// the generator. A corpus made
// earlier is reused as it is: generating 1 GB takes longer than indexing it.
//
// A corpus directory given with --corpus (explicit) is never written over:
// one made with other options is refused, so that files someone added
// beside a corpus are not lost.
func ensureCorpus(ctx context.Context, dir string, o corpusgen.Options, explicit bool, log io.Writer) (*corpusgen.Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	var m corpusgen.Manifest
	generated := err == nil && json.Unmarshal(b, &m) == nil && m.Generator > 0 && len(m.Files) > 0
	if generated && m.Generator == corpusgen.Version && sameOptions(m.Options, o) {
		fmt.Fprintf(log, "corpus: reusing %s (%s in %d files)\n", dir, mb(m.Bytes), len(m.Files))
		return &m, nil
	}
	// Only a directory the generator made under --work (or an empty one)
	// is ever emptied: --corpus might name someone's sessions.
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		if !generated {
			return nil, fmt.Errorf("refusing to use %s as the corpus: it is not empty and holds no corpus made by grove-corpus (manifest.json); pass a new or empty directory", dir)
		}
		if explicit {
			return nil, fmt.Errorf("refusing to write over %s: it holds a corpus made with other options or by another generator version; pass the same options, or a new or empty --corpus", dir)
		}
	}
	if o.Files > 0 {
		fmt.Fprintf(log, "corpus: generating %d sessions of at most %s (seed %d) in %s ...\n", o.Files, corpusgen.FormatSize(o.MaxSession), o.Seed, dir)
	} else {
		fmt.Fprintf(log, "corpus: generating %s of sessions (seed %d) in %s ...\n", mb(o.Size+o.BigSession), o.Seed, dir)
	}
	o.Force = true
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	return corpusgen.Generate(ctx, dir, o)
}

func sameOptions(a, b corpusgen.Options) bool {
	a.Force, b.Force, a.Workers, b.Workers = false, false, 0, 0
	return reflect.DeepEqual(a, b)
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// indexSummary is the JSON answer of `grove --json index`. BytesRead is
// nil when this grove does not report it (before incremental refresh).
type indexSummary struct {
	Files     int    `json:"files"`
	Indexed   int    `json:"indexed"`
	Appended  int    `json:"appended"`
	Unchanged int    `json:"unchanged"`
	Damaged   int    `json:"damaged"`
	Entries   int64  `json:"entries"`
	Removed   int    `json:"removed"`
	BytesRead *int64 `json:"bytes_read"`
}

// groveIndex runs `grove --db DB --json index --root ROOT` once.
func (s *suite) groveIndex(ctx context.Context, db, root string) (procRun, indexSummary, error) {
	var sum indexSummary
	r, err := runProc(ctx, nil, s.grove, []string{"--db", db, "--json", "index", "--root", root})
	if err != nil {
		return r, sum, err
	}
	if err := json.Unmarshal(r.Stdout, &sum); err != nil {
		return r, sum, fmt.Errorf("grove index output: %w: %s", err, r.Stdout)
	}
	return r, sum, nil
}

// auxOptions are the generator options of the step corpora: the defaults,
// with the run's seed and Chinese share.
func (s *suite) auxOptions() corpusgen.Options {
	o := corpusgen.DefaultOptions()
	o.Seed, o.ChineseShare = s.cfg.Corpus.Seed, s.cfg.Corpus.ChineseShare
	return o
}

// auxCorpus returns the directory WORK/name holding a corpus generated
// with o, and its manifest: reused when its manifest matches, generated
// otherwise (ensureCorpus's rules). flag names the option that sets its
// size, for the free-space message.
func (s *suite) auxCorpus(ctx context.Context, name string, o corpusgen.Options, flag string) (string, *corpusgen.Manifest, error) {
	dir := filepath.Join(s.cfg.Work, name)
	_, statErr := os.Stat(filepath.Join(dir, "manifest.json"))
	if err := checkSpace(s.cfg.Work, max(o.Size, o.BigSession), statErr == nil, flag); err != nil {
		return "", nil, err
	}
	start := time.Now()
	m, err := ensureCorpus(ctx, dir, o, false, s.log)
	if err != nil {
		return "", nil, err
	}
	if d := time.Since(start); d > 2*time.Second {
		fmt.Fprintf(s.log, "   generated in %.1f s\n", d.Seconds())
	}
	return dir, m, nil
}
