package archive_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/pgtest"
	"pgregory.net/rapid"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// forEachBackend runs test twice: with a new SQLite index file, and with a
// new PostgreSQL database of a throwaway cluster (internal/pgtest; that
// subtest skips, saying why, without PostgreSQL). db is what archive.Open
// takes.
func forEachBackend(t *testing.T, test func(t *testing.T, db string)) {
	t.Run("sqlite", func(t *testing.T) { test(t, filepath.Join(t.TempDir(), "index.db")) })
	t.Run("postgres", func(t *testing.T) { test(t, pgtest.DB(t)) })
}

// mustOpenArchive opens (creating) the index at dbPath and closes it when
// the test ends.
func mustOpenArchive(tb testing.TB, dbPath string) *archive.Archive {
	tb.Helper()
	a, err := archive.Open(context.Background(), dbPath)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	return a
}

// mustGenerated writes a small generated corpus (internal/corpusgen: pi of
// every version and plain sessions, branches, compactions, forks, Chinese,
// damaged files) and returns its directory.
func mustGenerated(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "generated")
	if _, err := corpusgen.Generate(context.Background(), dir, corpusgen.Options{
		Seed: 7, Size: 3 << 20, MaxSession: 96 << 10, DamageRate: 0.1, ChineseShare: 0.2, ForkRate: 0.1, PlainShare: 0.1}); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// mustIndexLeaves indexes the session files below dir into a new index and
// returns it with every leaf it holds (at least one).
func mustIndexLeaves(tb testing.TB, dir string) (*archive.Archive, []archive.Leaf) {
	tb.Helper()
	ctx := context.Background()
	a := mustOpenArchive(tb, filepath.Join(tb.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		tb.Fatal(err)
	}
	leaves, err := a.Leaves(ctx, archive.Filter{})
	if err != nil {
		tb.Fatal(err)
	}
	if len(leaves) == 0 {
		tb.Fatalf("no leaves indexed under %s", dir)
	}
	return a, leaves
}

// mustSQL runs stmts on the SQLite file at path with a plain connection
// (no grove) and closes it.
func mustSQL(tb testing.TB, path string, stmts ...string) {
	tb.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}

func mustRead(tb testing.TB, p string) []byte {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// dumpOf is the canonical dump of the index of a.
func dumpOf(t *rapid.T, a *archive.Archive) string {
	var b bytes.Buffer
	if err := archive.DBOf(a).Dump(context.Background(), &b); err != nil {
		t.Fatalf("Dump: %v", err)
	}
	return b.String()
}

// cleanDump indexes root into a new index and dumps it.
func cleanDump(t *rapid.T, root, db string) string {
	ctx := context.Background()
	os.Remove(db)
	a, err := archive.Open(ctx, db)
	if err != nil {
		t.Fatalf("open clean index: %v", err)
	}
	defer func() {
		a.Close()
		for _, s := range []string{"", "-wal", "-shm", ".lock"} {
			os.Remove(db + s)
		}
	}()
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatalf("clean index: %v", err)
	}
	return dumpOf(t, a)
}
