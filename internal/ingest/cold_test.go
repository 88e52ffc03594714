package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/ingest"
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
	corpus := filepath.Join(testutil.Root(t), "..", "shared", "corpus")
	if fi, err := os.Stat(corpus); err == nil && fi.IsDir() {
		roots = append(roots, corpus)
	} else {
		t.Log("../shared/corpus is not here: the fixtures only")
	}
	dir := t.TempDir()
	cold := mustOpen(t, filepath.Join(dir, "cold.db"))
	csum, err := cold.Index(ctx, ingest.IndexOptions{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	plain := mustOpen(t, filepath.Join(dir, "ordinary.db"))
	psum, err := ingest.IndexOrdinary(ctx, plain, ingest.IndexOptions{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Remember(ctx, ingest.IndexOptions{Roots: roots}); err != nil {
		t.Fatal(err)
	}
	if csum.Indexed < 20 || csum.Indexed != psum.Indexed || csum.Entries != psum.Entries || csum.Damaged != psum.Damaged {
		t.Fatalf("cold index: %d files, %d entries, %d damaged; ordinary: %d, %d, %d",
			csum.Indexed, csum.Entries, csum.Damaged, psum.Indexed, psum.Entries, psum.Damaged)
	}
	if got, want := mustDump(t, cold), mustDump(t, plain); got != want {
		t.Fatalf("the cold index differs from the ordinary one:\n%s", testutil.FirstDiff(got, want))
	}
	for _, leftover := range []string{ingest.RebuildPath(filepath.Join(dir, "cold.db")), ingest.RebuildPath(filepath.Join(dir, "cold.db")) + ".text"} {
		if _, err := os.Stat(leftover); !os.IsNotExist(err) {
			t.Errorf("the build left %s behind (%v)", leftover, err)
		}
	}
	// A second index of the same files is an ordinary refresh: nothing to read.
	sum, err := cold.Index(ctx, ingest.IndexOptions{Roots: roots})
	if err != nil || sum.Indexed != 0 || sum.Unchanged != csum.Indexed {
		t.Fatalf("index again: %+v, %v; want all %d unchanged", sum, err, csum.Indexed)
	}
}

// The first index of an empty index swaps its entry rows in before its
// search text: at that point another reader lists every session, its leaves
// and a path, and a search says the text is pending instead of silently
// finding less; once the run ends, search finds what a clean index does and
// says nothing of the kind. A run stopped while the text is built (ctx)
// leaves the text pending, and the next index builds the index again, equal
// to a clean one.
func TestColdIndex_ListingsBeforeText(t *testing.T) {
	ctx := context.Background()
	root := testutil.Testdata(t, "pi")
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	a := mustOpen(t, db)
	reader := mustOpen(t, db)
	var during struct {
		sessions, leaves int
		pending          bool
		pendingCount     int
		hits             int
	}
	ingest.OnEntriesIn(func() {
		ss, err := sessionsOf(ctx, reader)
		if err != nil {
			t.Errorf("sessions while the text is built: %v", err)
			return
		}
		during.sessions = len(ss)
		if ls, err := leavesOf(ctx, reader, ss[0].Path); err == nil {
			during.leaves = len(ls)
		}
		res, err := search(ctx, reader, "the", 20)
		if err != nil {
			t.Errorf("search while the text is built: %v", err)
			return
		}
		during.pending, during.pendingCount, during.hits = res.TextPending, res.Pending, res.Total
	})
	t.Cleanup(func() { ingest.OnEntriesIn(nil) })
	sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if during.sessions != sum.Indexed || during.leaves == 0 || !during.pending || during.pendingCount != sum.Indexed || during.hits != 0 {
		t.Fatalf("while the text was built: %+v; want %d sessions with leaves, search pending for all of them, no hits", during, sum.Indexed)
	}
	res, err := search(ctx, reader, "the", 20)
	if err != nil || res.TextPending || res.Total == 0 {
		t.Fatalf("search after the run: pending %v, %d hits, %v; want hits and nothing pending", res.TextPending, res.Total, err)
	}
	clean := mustOpen(t, filepath.Join(dir, "clean.db"))
	if _, err := ingest.IndexOrdinary(ctx, clean, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	clean.Remember(ctx, ingest.IndexOptions{Roots: []string{root}})
	if got, want := mustDump(t, a), mustDump(t, clean); got != want {
		t.Fatalf("the index differs from a clean one:\n%s", testutil.FirstDiff(got, want))
	}

	// Stopped while the text is built: the rows stay, the text is pending.
	db2 := filepath.Join(dir, "stopped.db")
	b := mustOpen(t, db2)
	stop, cancel := context.WithCancel(ctx)
	ingest.OnEntriesIn(cancel)
	if _, err := b.Index(stop, ingest.IndexOptions{Roots: []string{root}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("index stopped while the text is built: %v, want context.Canceled", err)
	}
	ingest.OnEntriesIn(nil)
	if res, err := search(ctx, b, "the", 20); err != nil || !res.TextPending {
		t.Fatalf("search after a stop: pending %v (%v), want pending", res != nil && res.TextPending, err)
	}
	if ss, _ := sessionsOf(ctx, b); len(ss) != sum.Indexed {
		t.Fatalf("after a stop the index lists %d sessions, want %d", len(ss), sum.Indexed)
	}
	// Indexing only one of the files again still reads them all: none of
	// the sessions whose text was pending leaves the index.
	one := filepath.Join(root, "v3-tree.jsonl")
	again, err := b.Index(ctx, ingest.IndexOptions{Files: []string{one}})
	if err != nil || again.Indexed != sum.Indexed {
		t.Fatalf("index of %s after a stop: %+v, %v; want all %d files read again", one, again, err, sum.Indexed)
	}
	if got, want := withoutSources(mustDump(t, b)), withoutSources(mustDump(t, clean)); got != want {
		t.Fatalf("the index built again differs from a clean one:\n%s", testutil.FirstDiff(got, want))
	}
}

// withoutSources is an index dump without its source lines (what the
// index was asked to read, which differs between the runs compared).
func withoutSources(dump string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(dump, "\n") {
		if !strings.HasPrefix(l, "source ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// A Ctrl-C once a cold build's entry rows are all written, before they are
// swapped in, keeps every file: the rows go in and the run stops while the
// text is built, saying how many sessions have no search text yet
// (IndexSummary.TextPending), instead of throwing the whole build away.
func TestColdIndex_StoppedBeforeTheSwapKeepsEveryFile(t *testing.T) {
	ctx := context.Background()
	root := testutil.Testdata(t, "pi")
	clean := mustOpen(t, filepath.Join(t.TempDir(), "clean.db"))
	want, err := clean.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
	if err != nil || want.Indexed == 0 {
		t.Fatalf("an index of %s: %+v, %v", root, want, err)
	}
	a := mustOpen(t, filepath.Join(t.TempDir(), "index.db"))
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	ingest.OnColdStep(func(step string) error {
		if step == "end" {
			cancel()
		}
		return nil
	})
	t.Cleanup(func() { ingest.OnColdStep(nil) })
	sum, err := a.Index(stop, ingest.IndexOptions{Roots: []string{root}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("index stopped before the swap: %v, want context.Canceled", err)
	}
	ss, _ := sessionsOf(ctx, a)
	if len(ss) != want.Indexed || sum.Indexed != want.Indexed || sum.TextPending != want.Indexed {
		t.Fatalf("stopped before the swap: the index lists %d sessions, the run says %d indexed and %d without search text; want %d each",
			len(ss), sum.Indexed, sum.TextPending, want.Indexed)
	}
	if res, err := search(ctx, a, "the", 20); err != nil || !res.TextPending {
		t.Fatalf("search after the stop: %+v, %v; want the text pending", res, err)
	}
}
