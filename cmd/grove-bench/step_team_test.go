package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/pgcluster"
	"github.com/grove-sessions/grove/internal/testutil"
)

// The concurrent writers' check fails when `grove sessions --json` lists
// fewer sessions of a source than its corpus has files, or more in all.
func TestTeamCheckSessions(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "sessions.json")
	grove := filepath.Join(dir, "grove")
	if err := os.WriteFile(grove, []byte("#!"+sh+"\ncat "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := func(n int) *corpusgen.Manifest { return &corpusgen.Manifest{Files: make([]corpusgen.File, n)} }
	s := &suite{grove: grove, log: io.Discard, cfg: config{TeamSessions: 2}}
	srcs := []teamSource{{name: "a", m: files(2)}, {name: "b", m: files(2)}}
	b := teamBackend{name: "PostgreSQL", db: "postgres:///x", pg: true}
	for _, c := range []struct{ sessions, err string }{
		{`{"source":"a"},{"source":"b"},{"source":"a"},{"source":"b"}`, ""},
		{`{"source":"a"},{"source":"b"},{"source":"a"}`, "lists 1 sessions of source b, 2 were written"},
		{`{"source":"a"},{"source":"b"},{"source":"a"},{"source":"b"},{"source":"c"}`, "lists 5 sessions, 4 were written"},
	} {
		testutil.MustWriteFile(t, dir, "sessions.json", []byte(`{"sessions":[`+c.sessions+`]}`))
		err := s.teamCheckSessions(context.Background(), b, srcs)
		if (c.err == "" && err != nil) || (c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err))) {
			t.Errorf("sessions %s: %v, want %q", c.sessions, err, c.err)
		}
	}
}

// The team step on a tiny team corpus against a real PostgreSQL: every
// figure measured for both backends, or the step skipped with a message
// when PostgreSQL's binaries are missing.
func TestTeamStep(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove-bench", "builds grove, starts PostgreSQL and indexes a team corpus on both backends")
	work := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"grove-bench", "--only", "team", "--runs", "1", "--search-runs", "1", "--work", work, "--json",
		"--team-sources", "3", "--team-sessions", "10", "--team-writers", "2", "--team-chain", "200"}
	if err := newApp(&stdout, &stderr).RunContext(context.Background(), args); err != nil {
		t.Fatalf("grove-bench: %v\n%s", err, stderr.String())
	}
	var res Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if _, err := pgcluster.BinDir(); err != nil {
		if len(res.Figures) != 1 || res.Figures[0].Skipped == "" {
			t.Errorf("without PostgreSQL: %+v, want one skipped figure", res.Figures)
		}
		t.Skip(err)
	}
	names := map[string]Figure{}
	for _, f := range res.Figures {
		if f.Section != "team" || f.Skipped != "" || f.Runs == 0 || f.Median <= 0 {
			t.Errorf("figure %+v", f)
		}
		if strings.Contains(f.Note, "DIFFERS") {
			t.Errorf("%s: %s", f.Name, f.Note)
		}
		names[f.Name] = f
	}
	for _, backend := range []string{"SQLite", "PostgreSQL"} {
		for _, n := range []string{"cold index, 1 writer(s)", "cold index, 2 writer(s)", "all searches", "path at depth 200", "refresh after a one-line append", "messages SESSION"} {
			if _, ok := names[backend+": "+n]; !ok {
				t.Errorf("no figure %q", backend+": "+n)
			}
		}
	}
	for _, n := range []string{"all searches", "path at depth 200", "messages SESSION"} {
		if _, ok := names["PostgreSQL after ANALYZE: "+n]; !ok {
			t.Errorf("no figure %q", "PostgreSQL after ANALYZE: "+n)
		}
	}
	if f := names["PostgreSQL: path at depth 200"]; f.Note == "" || !strings.HasPrefix(f.Note, "200 entries") {
		t.Errorf("path at depth 200: %+v", f)
	}
	// The corpus is where it was: renamed back after the PostgreSQL
	// readers, and the appended session cut back.
	for i := 0; i < 3; i++ {
		dir := filepath.Join(work, fmt.Sprintf("team-3-%d-10-seed%d", i, 1001+i))
		m, err := corpusgen.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Files {
			fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path)))
			if err != nil || fi.Size() != f.Bytes {
				t.Fatalf("%s: %v; want %d bytes", f.Path, err, f.Bytes)
			}
		}
	}
}
