package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// mustCleanDump is the dump of an index of root built the ordinary way,
// with root remembered.
func mustCleanDump(t *testing.T, root string) string {
	t.Helper()
	ctx := context.Background()
	clean := mustOpen(t, filepath.Join(t.TempDir(), "clean.db"))
	if _, err := ingest.IndexOrdinary(ctx, clean, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	if err := clean.Remember(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	return mustDump(t, clean)
}

// mustNoBuildFiles checks that nothing of a cold build is left beside the
// index at db: the private file, its search text, the copy made before
// the swap, their sidecars.
func mustNoBuildFiles(t *testing.T, db, what string) {
	t.Helper()
	if left, _ := filepath.Glob(ingest.RebuildPath(db) + "*"); len(left) > 0 {
		t.Errorf("%s: left %v", what, left)
	}
}

// faultErr is an I/O error of the operating system on the index file.
func faultErr(db string, errno syscall.Errno) error {
	return &os.PathError{Op: "write", Path: db, Err: errno}
}

// TestColdIndex_FaultsOnAnEmptyIndex: the first index of an empty index,
// its I/O failing at each step of the cold build — the swap of the entry
// rows, the fold of the -wal after it, the copy of the search text — with
// a full disk (ENOSPC), a full quota (EDQUOT) or an I/O error (EIO). The
// fold failing after the swap committed, and the quota and the I/O error
// anywhere, are what a small tmpfs cannot make. A full disk or quota at
// any step, and an I/O error before the text: the index is swapped back
// to what it was and the run indexes the ordinary way, which has room
// here, so the run succeeds with every file indexed and none unchanged,
// and the index equals a clean one. An I/O error copying the text: the
// run fails with it, the sessions are listed and search says their text
// is pending, none is claimed indexed; the next run stores the text
// (SPEC §6). Nothing of the build is left beside the index.
func TestColdIndex_FaultsOnAnEmptyIndex(t *testing.T) {
	ctx := context.Background()
	root := testutil.Testdata(t, "pi")
	want := mustCleanDump(t, root)
	t.Cleanup(func() { ingest.OnColdStep(nil) })
	for _, step := range []string{"swap", "fold", "text"} {
		for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EIO} {
			what := step + " failing with " + errno.Error()
			db := filepath.Join(t.TempDir(), "index.db")
			a := mustOpen(t, db)
			met := false
			ingest.OnColdStep(func(s string) error {
				if s != step {
					return nil
				}
				met = true
				return faultErr(db, errno)
			})
			sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
			ingest.OnColdStep(nil)
			if !met {
				t.Fatalf("%s: the cold build never reached the step", what)
			}
			mustNoBuildFiles(t, db, what)
			if errno == syscall.EIO && step == "text" {
				if !errors.Is(err, syscall.EIO) || sum.Indexed != 0 || sum.Unchanged != 0 {
					t.Fatalf("%s: Index = %+v, %v; want the I/O error, nothing counted", what, sum, err)
				}
				res, err := search(ctx, a, "the", 5)
				if err != nil || !res.TextPending {
					t.Fatalf("%s: search after = pending %v, %v; want the text said pending", what, res != nil && res.TextPending, err)
				}
				again, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
				if err != nil || again.Unchanged != 0 || again.Indexed == 0 {
					t.Fatalf("%s: the next Index = %+v, %v; want every file indexed again, none unchanged", what, again, err)
				}
			} else if err != nil || sum.Unchanged != 0 || sum.Indexed == 0 {
				t.Fatalf("%s: Index = %+v, %v; want every file indexed, the ordinary way", what, sum, err)
			}
			if got := mustDump(t, a); got != want {
				t.Fatalf("%s: the index differs from a clean one:\n%s", what, testutil.FirstDiff(got, want))
			}
			mustNoBuildFiles(t, db, what)
		}
	}
}

// TestColdIndex_FaultsOverPendingText: an index whose search text a
// stopped first index left pending is built again cold; a full disk at
// any step of that build fails the run with disk_full saying that nothing
// was indexed and the text of its sessions is still not in the index. The
// ordinary way is not taken, as it would count those sessions unchanged
// (SPEC §6): the sessions are listed, search says the text is pending,
// and the next run with room stores it.
func TestColdIndex_FaultsOverPendingText(t *testing.T) {
	ctx := context.Background()
	root := testutil.Testdata(t, "pi")
	want := withoutSources(mustCleanDump(t, root))
	t.Cleanup(func() {
		ingest.OnColdStep(nil)
		ingest.OnEntriesIn(nil)
	})
	for _, step := range []string{"swap", "fold", "text"} {
		db := filepath.Join(t.TempDir(), "index.db")
		a := mustOpen(t, db)
		stop, cancel := context.WithCancel(ctx)
		ingest.OnEntriesIn(cancel)
		first, err := a.Index(stop, ingest.IndexOptions{Roots: []string{root}})
		ingest.OnEntriesIn(nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("index stopped while the text is built: %v, want context.Canceled", err)
		}
		ingest.OnColdStep(func(s string) error {
			if s == step {
				return faultErr(db, syscall.ENOSPC)
			}
			return nil
		})
		sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
		ingest.OnColdStep(nil)
		if errs.CodeOf(index.DiskFull(db, err, 0, "")) != errs.CodeDiskFull || sum.Indexed+sum.Unchanged != 0 ||
			!strings.Contains(err.Error(), "nothing was indexed in this run") {
			t.Fatalf("%s failing over pending text: Index = %+v, %v; want disk_full saying nothing was indexed, nothing counted", step, sum, err)
		}
		if ss, _ := sessionsOf(ctx, a); len(ss) != first.Indexed {
			t.Fatalf("%s failing over pending text: %d sessions listed, want the %d of before", step, len(ss), first.Indexed)
		}
		if res, err := search(ctx, a, "the", 5); err != nil || !res.TextPending {
			t.Fatalf("%s failing over pending text: search not said pending (%v)", step, err)
		}
		mustNoBuildFiles(t, db, step)
		again, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
		if err != nil || again.Unchanged != 0 || again.Indexed != first.Indexed {
			t.Fatalf("%s failing over pending text, then with room: Index = %+v, %v; want all %d files indexed", step, again, err, first.Indexed)
		}
		if got := withoutSources(mustDump(t, a)); got != want {
			t.Fatalf("%s failing over pending text, then with room: the index differs from a clean one:\n%s", step, testutil.FirstDiff(got, want))
		}
	}
}

// TestWatch_TextPending: `grove watch` over an index whose search text a
// stopped first index left pending builds it as `grove index` would: its
// first pass counts every file indexed, none unchanged, and search finds
// the text (SPEC §6: never a file reported unchanged that was not stored).
func TestWatch_TextPending(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "pi")
	for _, f := range []string{"v3-tree.jsonl", "v2-branches.jsonl"} {
		testutil.MustCopy(t, testutil.Testdata(t, "pi/"+f), root, f)
	}
	a := mustOpen(t, filepath.Join(t.TempDir(), "index.db"))
	stop, cancel := context.WithCancel(ctx)
	ingest.OnEntriesIn(cancel)
	t.Cleanup(func() { ingest.OnEntriesIn(nil) })
	if _, err := a.Index(stop, ingest.IndexOptions{Roots: []string{root}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("index stopped while the text is built: %v, want context.Canceled", err)
	}
	ingest.OnEntriesIn(nil)
	watchCtx, done := context.WithCancel(ctx)
	defer done()
	var first *ingest.WatchPass
	err := a.Watch(watchCtx, ingest.WatchOptions{Roots: []string{root}}, func(p ingest.WatchPass) error {
		if first == nil {
			first = &p
			done()
		}
		return nil
	})
	if (err != nil && !errors.Is(err, context.Canceled)) || first == nil { // stopped after the first pass
		t.Fatalf("Watch = %v, first pass %v", err, first)
	}
	if first.Summary.Indexed != 2 || first.Summary.Unchanged != 0 {
		t.Fatalf("the first pass of a watch over pending text: %+v; want both files indexed, none unchanged", first.Summary)
	}
	res, err := search(ctx, a, "the", 5)
	if err != nil || res.TextPending || res.Total == 0 {
		t.Fatalf("search after the watch's first pass: pending %v, %d hits, %v; want hits", res != nil && res.TextPending, res.Total, err)
	}
}
