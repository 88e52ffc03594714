package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// The cold build of an empty index (a private file, the search text built
// on another core and copied in, files read ahead) stores exactly what the
// ordinary way does, file by file through the live index's batches: every
// session, entry, diagnostic, label and token (index.DB.Dump). The files
// are every fixture of every dialect and the damaged cases, and the real
// sessions of ../shared/corpus when it is there.
func TestColdIndex_SameAsOrdinary(t *testing.T) {
	ctx := context.Background()
	roots := []string{testutil.Testdata(t, ".")}
	if fi, err := os.Stat(filepath.Join("..", "..", "shared", "corpus")); err == nil && fi.IsDir() {
		roots = append(roots, filepath.Join("..", "..", "shared", "corpus"))
	} else {
		t.Log("../shared/corpus is not here: the fixtures only")
	}
	dir := t.TempDir()
	cold := mustOpenArchive(t, filepath.Join(dir, "cold.db"))
	csum, err := cold.Index(ctx, archive.IndexOptions{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	plain := mustOpenArchive(t, filepath.Join(dir, "ordinary.db"))
	psum, err := archive.IndexOrdinary(ctx, plain, archive.IndexOptions{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Remember(ctx, archive.IndexOptions{Roots: roots}); err != nil {
		t.Fatal(err)
	}
	if csum.Indexed < 40 || csum.Indexed != psum.Indexed || csum.Entries != psum.Entries || csum.Damaged != psum.Damaged {
		t.Fatalf("cold index: %d files, %d entries, %d damaged; ordinary: %d, %d, %d",
			csum.Indexed, csum.Entries, csum.Damaged, psum.Indexed, psum.Entries, psum.Damaged)
	}
	if got, want := mustDump(t, cold), mustDump(t, plain); got != want {
		t.Fatalf("the cold index differs from the ordinary one:\n%s", testutil.FirstDiff(got, want))
	}
	for _, leftover := range []string{archive.RebuildPath(filepath.Join(dir, "cold.db")), archive.RebuildPath(filepath.Join(dir, "cold.db")) + ".text"} {
		if _, err := os.Stat(leftover); !os.IsNotExist(err) {
			t.Errorf("the build left %s behind (%v)", leftover, err)
		}
	}
	// A second index of the same files is an ordinary refresh: nothing to read.
	sum, err := cold.Index(ctx, archive.IndexOptions{Roots: roots})
	if err != nil || sum.Indexed != 0 || sum.Unchanged != csum.Indexed {
		t.Fatalf("index again: %+v, %v; want all %d unchanged", sum, err, csum.Indexed)
	}
}
