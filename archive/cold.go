package archive

import (
	"context"
	"errors"
)

// coldIndex is the first `grove index` of an empty index (issue 16): the
// files are indexed into a private file with the journal off, their
// search text built on another core (index.OpenBuild), and the result
// swapped in whole (index.DB.RestoreFrom), so readers see an empty index
// until then and every session after. ok is false when the index is not
// empty, or the build failed for any reason but ctx (a full disk among
// them): the caller then indexes the ordinary way, which keeps what fits
// (README "A full disk"). A Ctrl-C keeps the files finished before it, as
// the ordinary way does: they are swapped in and the error is ctx's.
func (a *Archive) coldIndex(ctx context.Context, opts IndexOptions) (sum IndexSummary, err error, ok bool) {
	unlock, err := a.Lock(ctx, opts.Busy)
	if err != nil {
		return sum, err, true
	}
	defer unlock()
	if n, err := a.db.CountSessions(ctx); err != nil || n > 0 {
		return sum, nil, false
	}
	tmp := RebuildPath(a.db.File())
	if err := removeIndexFiles(tmp); err != nil {
		return sum, nil, false
	}
	defer removeIndexFiles(tmp)
	fresh, err := openBuild(ctx, tmp)
	if err != nil {
		return sum, nil, false
	}
	defer fresh.Close()
	// What the empty index holds besides sessions: the sources it carried
	// over from a damaged one (carrySources).
	if srcs, err := a.db.Sources(ctx); err != nil || fresh.db.AddSources(ctx, srcs) != nil {
		return sum, nil, false
	}
	o := opts
	o.Busy, o.whole = nil, true
	sum, err = fresh.refresh(ctx, o)
	stopped := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	if err != nil && !stopped {
		return IndexSummary{}, nil, false
	}
	finish := context.WithoutCancel(ctx) // a Ctrl-C keeps what was done
	if stopped && sum.Indexed == 0 {
		return sum, err, true
	}
	if ferr := fresh.db.Finish(finish); ferr != nil {
		return IndexSummary{}, nil, false
	}
	if ferr := fresh.Close(); ferr != nil {
		return IndexSummary{}, nil, false
	}
	if ferr := a.db.RestoreFrom(finish, tmp); ferr != nil {
		return sum, a.db.Classify(ferr), true
	}
	return sum, err, true
}
