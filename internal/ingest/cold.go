package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/plural"
)

// entriesIn, when set (by tests), is called once a cold build's entry
// rows are swapped in and before its search text is.
var entriesIn func()

// coldStep, when set (by tests), is called at each step of a cold build
// named below (coldEnd, coldSwap, coldFold, coldText) before the step's own
// writes; an error it returns is taken as that step's I/O failing.
var coldStep func(step string) error

// The steps of a cold build that coldStep sees.
const (
	coldEnd  = "end"  // the entry rows are complete and ended (EndEntries)
	coldSwap = "swap" // the entry rows are copied into the index (RestoreFrom)
	coldFold = "fold" // the copy is folded from the -wal into the index file
	coldText = "text" // the search text is copied in (AdoptText)
)

func stepFault(step string) error {
	if coldStep == nil {
		return nil
	}
	return coldStep(step)
}

// coldIndex is the first `grove index` of an empty index: the files are
// indexed into a private file without syncs, their search text
// built on another core (index.OpenBuild). The entry rows are swapped in
// as soon as they are all written (index.DB.RestoreFrom), their file
// removed, so sessions, workspaces, leaves, branches, tree and path
// answer while the search text is still being built; search says so
// (index.DB.TextPending) until the text is swapped in too
// (index.DB.AdoptText). An index whose text a killed run left pending is
// built again the same way.
//
// ok is false when the index holds sessions whose text is not pending, or
// when the build of an empty index failed for any reason but ctx (a full
// disk among them): the caller then indexes the ordinary way, which keeps
// what fits (docs/indexing.md "A full disk"). When the text finds no room after the
// entry rows were swapped in, the index is swapped back to what it was
// (a copy made before the swap) and ok is false too: the index never
// keeps rows whose text is missing for lack of room. Over sessions whose
// text was pending before the run, a failure is the run's error: the
// ordinary way would count those sessions unchanged, their text not
// stored (SPEC §6). A Ctrl-C keeps the files finished before it, as the
// ordinary way does: they are swapped in, with their search text if it is
// done, and the error is ctx's.
func (ix *Indexer) coldIndex(ctx context.Context, opts IndexOptions) (sum IndexSummary, err error, ok bool) {
	if ix.db.IsServer() { // PostgreSQL has no file to build beside and swap in
		return sum, nil, false
	}
	unlock, err := ix.Lock(ctx, opts.Busy)
	if err != nil {
		return sum, err, true
	}
	defer unlock()
	n, err := ix.db.CountSessions(ctx)
	if err != nil {
		return sum, nil, false
	}
	if n > 0 {
		if pending, err := ix.db.TextPending(ctx); err != nil || !pending {
			return sum, nil, false
		}
	}
	// failed ends a build that swapped nothing in.
	failed := func(err error) (IndexSummary, error, bool) {
		if n > 0 {
			return IndexSummary{Failed: []Failure{}, Unsupported: []Failure{}}, ix.stillPending(err, n), true
		}
		return ix.notCold(err)
	}
	tmp := RebuildPath(ix.db.File())
	if err := removeIndexFiles(tmp); err != nil {
		return failed(err)
	}
	defer removeIndexFiles(tmp)
	fresh, err := openBuild(ctx, tmp)
	if err != nil {
		return failed(err)
	}
	fresh.db.SetSource(ix.db.Source())
	ix.keepInto(fresh)
	defer fresh.Close()
	o, err := ix.coldOptions(ctx, fresh, opts, n)
	if err != nil {
		return failed(err)
	}
	sum, err = fresh.refresh(ctx, o)
	stopped := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	if err != nil && !stopped {
		return failed(err)
	}
	if stopped && sum.Indexed == 0 && n == 0 {
		return sum, err, true
	}
	keep := context.WithoutCancel(ctx) // a Ctrl-C keeps the files finished
	if stopped {
		sessions, entries, ferr := ix.keepStopped(keep, fresh, tmp)
		if ferr != nil {
			return failed(ferr)
		}
		if n == 0 {
			// What the build holds is what this run indexed: the count
			// of the files it finished comes from the build, which is
			// what is swapped in.
			sum.Indexed, sum.Entries = sessions, entries
		}
		return sum, err, true
	}
	// From here the entry rows are complete: a Ctrl-C before they are
	// swapped in would throw them all away, so it is heard only once they
	// are in, while the text is built.
	ferr := stepFault(coldEnd)
	if ferr == nil {
		ferr = fresh.db.EndEntries(keep)
	}
	if ferr != nil {
		return failed(ferr)
	}
	// The index as it was, to swap back in if the text finds no room.
	before := tmp + ".before"
	if n == 0 {
		if ferr := ix.db.CopyTo(keep, before); ferr != nil {
			return failed(ferr)
		}
	}
	if ferr := stepFault(coldSwap); ferr != nil {
		return failed(ferr)
	}
	if ferr := ix.db.RestoreFrom(keep, tmp); ferr != nil {
		return failed(ferr)
	}
	// The entry rows are in. Their file is not needed any more: its room
	// is what the index file grows by as the -wal is folded into it.
	removeBuildFile(tmp)
	ferr = stepFault(coldFold)
	if ferr == nil {
		ferr = ix.db.Checkpoint(keep)
	}
	if ferr != nil {
		// The text being built took that room meanwhile.
		fresh.Close()
		return ix.swapBack(keep, n, before, ferr)
	}
	// The listings answer from here on. A Ctrl-C while the text is built
	// leaves it pending: the next `grove index` builds the index again.
	if entriesIn != nil {
		entriesIn()
	}
	ferr = stepFault(coldText)
	if ferr == nil {
		ferr = ix.db.AdoptText(ctx, fresh.db)
	}
	if ferr != nil {
		if ctx.Err() != nil {
			sum.TextPending, _ = ix.db.CountSessions(keep)
			return sum, ctx.Err(), true
		}
		if index.IsDiskFull(ferr) {
			fresh.Close()
			return ix.swapBack(keep, n, before, ferr)
		}
		// The rows stay, their text pending (search says so): no file
		// is counted, and the next run builds the index again.
		return IndexSummary{Failed: []Failure{}, Unsupported: []Failure{}}, ix.db.Classify(ferr), true
	}
	return sum, nil, true
}

// coldOptions is what the cold build reads: opts whole and without its
// Busy, and, over n sessions whose text a killed run left pending, their
// files too (those still there). It first carries into the build (fresh)
// what the index holds besides sessions: the sources carried over from a
// damaged one or remembered before a run that was killed, and the files
// grove forget left out.
func (ix *Indexer) coldOptions(ctx context.Context, fresh *Indexer, opts IndexOptions, n int) (o IndexOptions, err error) {
	// What the index holds besides sessions: the sources it carried over
	// from a damaged one (carrySources), or remembered before a run that
	// was killed while its search text was built.
	srcs, err := ix.db.Sources(ctx)
	if err == nil {
		err = fresh.db.AddSources(ctx, srcs)
	}
	if err == nil {
		err = carryForgotten(ctx, ix.db, fresh.db)
	}
	if err != nil {
		return o, err
	}
	o = opts
	o.Busy, o.whole = nil, true
	if n > 0 {
		// Built again over sessions whose text a killed run left pending:
		// their files are read too, whatever this run names, so that none
		// leaves the index (those gone since are left out).
		known, _, err := ix.db.FileStates(ctx)
		if err != nil {
			return o, err
		}
		o.Files = slices.Clone(opts.Files)
		for p := range known {
			if _, err := os.Lstat(p); err == nil {
				o.Files = append(o.Files, p)
			}
		}
		slices.Sort(o.Files[len(opts.Files):])
	}
	return o, nil
}

// keepStopped keeps what a cold build stopped by ctx finished: its rows
// and their text go in together (fresh's text done at once; the file whose
// read was stopped part-way was rolled back), and the build at tmp is
// swapped in.
// It answers how many sessions, and entries in them, the build held then.
func (ix *Indexer) keepStopped(keep context.Context, fresh *Indexer, tmp string) (sessions, entries int, err error) {
	// Nothing waits for the text to be built: it goes in with the rows.
	if err := fresh.db.Finish(keep); err != nil {
		return 0, 0, err
	}
	if sessions, entries, err = fresh.db.Totals(keep); err != nil {
		return 0, 0, err
	}
	if err := fresh.Close(); err != nil {
		return 0, 0, err
	}
	if err := ix.swapIn(keep, tmp); err != nil {
		return 0, 0, err
	}
	return sessions, entries, nil
}

// swapIn swaps the complete index at src in (index.DB.RestoreFrom), removes
// src and folds the -wal into the index file. The error is the swap's:
// once it is in, the fold is best effort (RestoreFrom made sure of the
// room for it; a -wal that stays is still whole).
func (ix *Indexer) swapIn(ctx context.Context, src string) error {
	if err := stepFault(coldSwap); err != nil {
		return err
	}
	if err := ix.db.RestoreFrom(ctx, src); err != nil {
		return err
	}
	removeBuildFile(src)
	ix.db.Checkpoint(ctx)
	return nil
}

// swapBack ends a cold build whose entry rows were swapped in but whose
// search text found no room (cause): the index as it was before the swap
// (the copy at before) is swapped back in, the -wal folded and truncated,
// and the caller indexes the ordinary way, which keeps what fits. The
// build's files are gone by then (the caller closed the build). Over
// sessions whose text was pending before the run (n > 0) there is no copy:
// the rows stay, their text still pending, and cause is the run's error;
// so it is when the swap back fails.
func (ix *Indexer) swapBack(ctx context.Context, n int, before string, cause error) (IndexSummary, error, bool) {
	empty := IndexSummary{Failed: []Failure{}, Unsupported: []Failure{}}
	os.Remove(index.TextPath(RebuildPath(ix.db.File())))
	if err := ix.db.Checkpoint(ctx); err == nil && n == 0 {
		if err := ix.db.RestoreFrom(ctx, before); err == nil {
			if err := ix.db.Checkpoint(ctx); err == nil {
				return ix.notCold(cause)
			}
		}
	}
	sessions, err := ix.db.CountSessions(ctx)
	if err != nil {
		sessions = max(n, 1)
	}
	return empty, ix.stillPending(cause, sessions), true
}

// stillPending is the error of a cold build that leaves n sessions in the
// index whose search text is not: a full disk becomes a disk_full
// *errs.Error saying so, without a hint (index.DiskFull adds the
// command's); any other error is returned as it is.
func (ix *Indexer) stillPending(err error, n int) error {
	de, _ := index.DiskFull(ix.db.File(), err, 0, "").(*errs.Error)
	if de == nil {
		return err
	}
	de.Message += fmt.Sprintf("; nothing was indexed in this run: the search text of %s is not in the index (search says so; the other commands answer) — run the command again once there is room",
		plural.Count(n, "session", "sessions"))
	de.Hint = ""
	return de
}

// removeBuildFile removes the entry rows' file of a cold build and its
// SQLite sidecars, leaving its search text (index.TextPath) to the
// builder.
func removeBuildFile(path string) {
	for _, s := range append([]string{""}, sidecars...) {
		os.Remove(path + s)
	}
}

// notCold gives up a cold build that failed before anything was swapped
// in, so that the caller indexes the ordinary way. Anything but a full
// disk (which the ordinary way meets too, keeping what fits) is named on
// stderr: it would otherwise cost only time, unseen.
func (ix *Indexer) notCold(err error) (IndexSummary, error, bool) {
	if err != nil && !index.IsDiskFull(err) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		ix.note("warning: the first index could not be built in one go (" + errs.PathReason(err) + "); indexing file by file instead")
	}
	return IndexSummary{}, nil, false
}
