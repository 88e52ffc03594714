package archive

import (
	"context"
	"errors"
	"os"
	"slices"

	"github.com/grove-sessions/grove/index"
)

// entriesIn, when set (by tests), is called once a cold build's entry
// rows are swapped in and before its search text is.
var entriesIn func()

// coldIndex is the first `grove index` of an empty index (issue 16): the
// files are indexed into a private file with the journal off, their
// search text built on another core (index.OpenBuild). The entry rows are
// swapped in as soon as they are all written (index.DB.RestoreFrom), so
// sessions, workspaces, leaves, branches, tree and path answer while the
// search text is still being built; search says so (index.DB.TextPending)
// until the text is swapped in too (index.DB.AdoptText). An index whose
// text a killed run left pending is built again the same way.
//
// ok is false when the index holds sessions, or the build failed before
// anything was swapped in for any reason but ctx (a full disk among
// them): the caller then indexes the ordinary way, which keeps what fits
// (README "A full disk"). A Ctrl-C keeps the files finished before it, as
// the ordinary way does: they are swapped in, with their search text if
// it is done, and the error is ctx's.
func (a *Archive) coldIndex(ctx context.Context, opts IndexOptions) (sum IndexSummary, err error, ok bool) {
	if a.db.IsServer() { // PostgreSQL has no file to build beside and swap in
		return sum, nil, false
	}
	unlock, err := a.Lock(ctx, opts.Busy)
	if err != nil {
		return sum, err, true
	}
	defer unlock()
	n, err := a.db.CountSessions(ctx)
	if err != nil {
		return sum, nil, false
	}
	if n > 0 {
		if pending, err := a.db.TextPending(ctx); err != nil || !pending {
			return sum, nil, false
		}
	}
	tmp := RebuildPath(a.db.File())
	if err := removeIndexFiles(tmp); err != nil {
		return a.notCold(err)
	}
	defer removeIndexFiles(tmp)
	fresh, err := openBuild(ctx, tmp)
	if err != nil {
		return a.notCold(err)
	}
	fresh.db.SetSource(a.db.Source())
	defer fresh.Close()
	// What the index holds besides sessions: the sources it carried over
	// from a damaged one (carrySources), or remembered before a run that
	// was killed while its search text was built.
	srcs, err := a.db.Sources(ctx)
	if err == nil {
		err = fresh.db.AddSources(ctx, srcs)
	}
	if err != nil {
		return a.notCold(err)
	}
	o := opts
	o.Busy, o.whole = nil, true
	if n > 0 {
		// Built again over sessions whose text a killed run left pending:
		// their files are read too, whatever this run names, so that none
		// leaves the index (those gone since are left out).
		known, _, err := a.db.FileStates(ctx)
		if err != nil {
			return a.notCold(err)
		}
		o.Files = slices.Clone(opts.Files)
		for p := range known {
			if _, err := os.Lstat(p); err == nil {
				o.Files = append(o.Files, p)
			}
		}
		slices.Sort(o.Files[len(opts.Files):])
	}
	sum, err = fresh.refresh(ctx, o)
	stopped := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	if err != nil && !stopped {
		return a.notCold(err)
	}
	if stopped && sum.Indexed == 0 && n == 0 {
		return sum, err, true
	}
	keep := context.WithoutCancel(ctx) // a Ctrl-C keeps the files finished
	if stopped {
		// Nothing waits for the text to be built: it goes in with the rows.
		if ferr := fresh.db.Finish(keep); ferr != nil {
			return a.notCold(ferr)
		}
		if ferr := fresh.Close(); ferr != nil {
			return a.notCold(ferr)
		}
		if ferr := a.db.RestoreFrom(keep, tmp); ferr != nil {
			return a.notSwapped(keep, ferr)
		}
		return sum, err, true
	}
	if ferr := fresh.db.EndEntries(ctx); ferr != nil {
		return a.notCold(ferr)
	}
	if ferr := a.db.RestoreFrom(keep, tmp); ferr != nil {
		return a.notSwapped(keep, ferr)
	}
	// The listings answer from here on. A Ctrl-C while the text is built
	// leaves it pending: the next `grove index` builds the index again.
	if entriesIn != nil {
		entriesIn()
	}
	if ferr := a.db.AdoptText(ctx, fresh.db); ferr != nil {
		if ctx.Err() != nil {
			return sum, ctx.Err(), true
		}
		return sum, a.db.Classify(ferr), true
	}
	return sum, nil, true
}

// notCold gives up a cold build that failed before anything was swapped
// in, so that the caller indexes the ordinary way. Anything but a full
// disk (which the ordinary way meets too, keeping what fits) is named on
// stderr: it would otherwise cost only time, unseen.
func (a *Archive) notCold(err error) (IndexSummary, error, bool) {
	if err != nil && !index.IsDiskFull(err) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		a.note("warning: the first index could not be built in one go (" + errMsg(err) + "); indexing file by file instead")
	}
	return IndexSummary{}, nil, false
}

// notSwapped gives up a cold build whose swap failed (a full disk, most
// likely): the swap is one transaction, so the index is as it was, empty;
// the WAL the failed copy grew is given back before the caller indexes
// the ordinary way.
func (a *Archive) notSwapped(ctx context.Context, err error) (IndexSummary, error, bool) {
	a.db.Checkpoint(ctx) // best effort: a WAL that stays is still whole
	return a.notCold(err)
}
