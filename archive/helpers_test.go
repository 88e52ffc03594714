package archive_test

import (
	"context"
	"testing"

	"github.com/grove-sessions/grove/archive"
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
