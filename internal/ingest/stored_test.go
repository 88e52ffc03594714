package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/pgtest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// A run that stores AnalyzeEntries entries or more into PostgreSQL leaves
// the planner's statistics gathered: a freshly loaded database has none
// until autovacuum comes round, and its searches walk whole indexes.
func TestIndex_AnalyzesAfterALargeLoad(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	a := mustOpen(t, url)
	sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{mustGenerated(t)}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Entries < ingest.AnalyzeEntries {
		t.Fatalf("the generated corpus holds %d entries, fewer than AnalyzeEntries (%d)", sum.Entries, ingest.AnalyzeEntries)
	}
	var analyzed bool
	if err := pgtest.Open(t, url).Get(&analyzed, "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'entries'"); err != nil {
		t.Fatal(err)
	}
	if !analyzed {
		t.Fatalf("%d entries stored and the entries table was not analyzed", sum.Entries)
	}
}

// A run small beside the index leaves the statistics to autovacuum: fewer
// than AnalyzeEntries entries, or under a tenth of the rows, autovacuum's
// own threshold.
func TestIndex_NoAnalyzeForASmallRun(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	a := mustOpen(t, url)
	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{mustGenerated(t)}}); err != nil {
		t.Fatal(err)
	}
	var rows float64
	if err := pgtest.Open(t, url).Get(&rows, "SELECT reltuples FROM pg_class WHERE relname = 'entries'"); err != nil || rows < 100 {
		t.Fatalf("entries analyzed as %.0f rows (%v); want the generated corpus's", rows, err)
	}
	db := a.DB()
	for _, c := range []struct {
		entries, min int
		want         bool
	}{
		{int(rows) / 20, 1, false},              // a twentieth of the rows
		{int(rows) / 5, 1, true},                // a fifth
		{int(rows) / 5, int(rows)/5 + 1, false}, // a fifth, under the minimum
	} {
		if ran, err := db.AnalyzeAfter(ctx, c.entries, c.min); err != nil || ran != c.want {
			t.Fatalf("%d entries added (minimum %d) to %.0f rows: analyzed %t, %v; want %t", c.entries, c.min, rows, ran, err, c.want)
		}
	}
}

// A rebuild from the stored bytes gives every session the rows a read of
// its file gave, the names from outside the file too: a Claude Code
// sub-agent's comes from the agent-ID.meta.json beside it, which is not
// stored (SPEC §3.4, §10).
func TestRebuildStored_KeepsWhatTheFileGave(t *testing.T) {
	ctx := context.Background()
	a := mustOpen(t, pgtest.DB(t))
	root := filepath.Join(t.TempDir(), "claude")
	if err := os.CopyFS(root, os.DirFS(testutil.Testdata(t, "claude"))); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	before, err := sessionsOf(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, s := range before {
		if s.Name != "" {
			named++
		}
	}
	if named == 0 {
		t.Fatal("no named session among the claude fixtures")
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RebuildStored(ctx, ingest.StoredRebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	after, err := sessionsOf(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", sessionFacts(after)) != fmt.Sprintf("%+v", sessionFacts(before)) {
		t.Fatalf("after the rebuild:\n%+v\nbefore:\n%+v", sessionFacts(after), sessionFacts(before))
	}
}

// sessionFacts is what a listing shows of each session.
func sessionFacts(list []index.Session) []string {
	var out []string
	for _, s := range list {
		out = append(out, fmt.Sprintf("%s %s %q %s %d %d %s %d", s.SessionID, s.Path, s.Name, s.Workspace, s.Entries, s.Leaves, s.State, s.Diagnostics))
	}
	return out
}

// copyV3 copies testdata's pi v3 session into a new directory and returns
// both.
func copyV3(t *testing.T) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	src, err := os.ReadFile(testutil.Testdata(t, "pi/v3-tree.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "v3.jsonl")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// A SQLite index's sessions from before schema 9 (an empty source) take the
// writer's source at its next index pass, under the index's lock.
func TestIndex_ClaimsSourcelessSessions(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "index.db")
	a := mustOpen(t, db)
	dir, _ := copyV3(t)
	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	mustSQL(t, db, "UPDATE sessions SET source = ''")
	if err := a.SetSource(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	list, err := sessionsOf(ctx, a)
	if err != nil || len(list) != 1 || list[0].Source != "laptop" {
		t.Fatalf("after the next index: %+v, %v; want the one session of source laptop", list, err)
	}
}
