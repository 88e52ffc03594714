package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// The serve step runs end to end on tiny inputs: the real grove serve
// over a 16 KB generated session and a pi and a Claude session of
// testdata, every figure measured (the page figures skipped, with a
// message, only when there is no Chromium), and the server stopped
// cleanly after.
func TestServeStep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds grove and starts grove serve and Chromium")
	}
	work := t.TempDir()
	grove := filepath.Join(work, "grove")
	build := exec.Command("go", "build", "-o", grove, "../grove")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ../grove: %v\n%s", err, out)
	}
	corpus := filepath.Join(work, "shared-corpus")
	for _, f := range []struct{ from, to string }{
		{"../../testdata/pi/v3-tree.jsonl", "pi/v3-tree.jsonl"},
		{"../../testdata/claude/7f3c2a10-0000-4000-8000-000000000001.jsonl", "claude/projects/-demo/7f3c2a10-0000-4000-8000-000000000001.jsonl"},
	} {
		testutil.MustCopy(t, f.from, corpus, f.to)
	}
	s := &suite{grove: grove, log: io.Discard, byName: map[string]Figure{},
		cfg: config{Work: work, ServeSize: 16 << 10, ServeRuns: 2, ServeCorpus: corpus}}
	s.cfg.Corpus.Seed = 1
	s.res.Ratios = map[string]float64{}
	if err := s.serveStep(context.Background()); err != nil {
		t.Fatal(err)
	}
	var pages, searches int
	for _, f := range s.res.Figures {
		if f.Section != "serve" {
			t.Errorf("figure %+v outside the serve section", f)
		}
		switch {
		case f.Skipped != "":
			if !strings.Contains(f.Skipped, "no Chromium") || findChromium() != "" {
				t.Errorf("%s skipped: %s", f.Name, f.Skipped)
			}
			continue
		case f.Runs == 0 || f.Median <= 0 || f.Min > f.Median || f.Median > f.Max:
			t.Errorf("%s = %+v: want runs and 0 < min <= median <= max", f.Name, f)
		}
		if strings.HasPrefix(f.Name, "/search ") || strings.HasPrefix(f.Name, "/api/search ") {
			searches++
		}
		if strings.HasSuffix(f.Name, ": finished page (load event end)") {
			pages++
			if f.Runs != 2 {
				t.Errorf("%s: %d runs, want --serve-runs 2", f.Name, f.Runs)
			}
		}
	}
	if searches != 2*len(queries) {
		t.Errorf("%d search figures, want /search and /api/search for each of %d queries", searches, len(queries))
	}
	if findChromium() != "" && pages != 6 {
		t.Errorf("%d pages measured, want a tree and a transcript of each of 3 sessions", pages)
	}
	for _, name := range []string{"generated pi (", "corpus pi v3-tree: transcript: transferred", "corpus claude 7f3c2a10: tree: time to first byte"} {
		found := false
		for k := range s.byName {
			found = found || strings.Contains(k, name)
		}
		if !found && (findChromium() != "" || name == "generated pi (") {
			t.Errorf("no figure named like %q", name)
		}
	}
	if f := s.byName["serve/corpus pi v3-tree: transcript: transferred"]; findChromium() != "" && !strings.Contains(f.Note, "entries drawn") || strings.Contains(f.Note, "; 0 entries drawn") {
		t.Errorf("transcript note %q: want the entries the page drew", f.Note)
	}
	if rss := s.byName["serve/server RSS after serving the pages"]; rss.Median < 5 {
		t.Errorf("server RSS %+v: want a resident set read from /proc", rss)
	}
	if _, err := os.Stat(filepath.Join(work, "serve.db")); !os.IsNotExist(err) {
		t.Errorf("the step's index is left behind: %v", err)
	}
}
