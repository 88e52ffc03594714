package archive_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/corpusgen"
)

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
