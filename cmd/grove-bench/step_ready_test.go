package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// fakeIndexer writes a shell script that acts as grove for the ready
// step: each `sessions` call is counted in DB.calls; the first three fail
// as a busy index does, later ones list two sessions; `index` returns
// only once the fourth has begun (or fails after about 10 s without it, so
// that a broken step cannot hang the test); leaves and path answer.
func fakeIndexer(t *testing.T) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	script := "#!" + sh + `
calls="$2.calls"
case "$4" in
index)
	i=0
	while [ "$(wc -l < "$calls" 2>/dev/null || echo 0)" -lt 4 ]; do
		i=$((i+1)); if [ $i -gt 1000 ]; then echo "no fourth listing" >&2; exit 1; fi
		sleep 0.01
	done
	echo '{"files":2,"entries":2}' ;;
sessions)
	echo x >> "$calls"
	if [ "$(wc -l < "$calls")" -lt 4 ]; then echo '{"error":{"code":"index_busy"}}'; exit 1; fi
	echo '{"sessions":[{"id":"a"},{"id":"b"}]}' ;;
*) echo '{}' ;;
esac
`
	p := filepath.Join(t.TempDir(), "grove")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The ready step counts a failing listing (a busy or missing index) as
// not ready, and takes the first poll that lists every session.
func TestStructureReady(t *testing.T) {
	work := t.TempDir()
	s := &suite{grove: fakeIndexer(t), log: io.Discard, byName: map[string]Figure{},
		cfg: config{Dir: work, Work: work, Runs: 1},
		m:   &corpusgen.Manifest{Files: []corpusgen.File{{Path: "a.jsonl"}, {Path: "b.jsonl"}}}}
	s.res.Ratios = map[string]float64{}
	if err := s.structureReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := s.byName["ready/structure ready: listings answer"]
	if f.Runs != 1 || !strings.Contains(f.Note, "all 2,") || !strings.Contains(f.Note, "4 polls in 1 runs") {
		t.Errorf("ready figure %+v", f)
	}
	if r := s.byName["ready/structure ready ÷ full build"]; r.Median <= 0 || r.Median > 1 {
		t.Errorf("ready share %+v", r)
	}
	// A listing short of the corpus's sessions after the build is an
	// error, not a figure.
	s.m.Files = append(s.m.Files, corpusgen.File{Path: "c.jsonl"})
	os.Remove(filepath.Join(work, "ready.db.calls"))
	if err := s.structureReady(context.Background()); err == nil || !strings.Contains(err.Error(), "lists 2 sessions, the corpus has 3") {
		t.Errorf("a short listing: %v", err)
	}
}
