package ingest

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/watch"
)

// The defaults of `grove watch` (docs/commands.md "grove watch").
const (
	DefaultWatchQuiet  = watch.DefaultQuiet  // 250 ms without a change before a batch is indexed
	DefaultWatchRescan = watch.DefaultRescan // 5 minutes between full passes
)

// WatchOptions say what Watch watches.
type WatchOptions struct {
	// Roots are directories, each one readable now (see SplitRoots):
	// every directory below them is watched, new ones too; symlinked ones
	// are not followed.
	Roots []string
	// Quiet is how long no change must come before a batch is indexed;
	// a batch waits at most 2 s (or Quiet, if longer) while changes go on.
	// Zero means DefaultWatchQuiet.
	Quiet time.Duration
	// Rescan is the period of the full pass that catches changes the
	// system did not report. Zero means DefaultWatchRescan.
	Rescan time.Duration
	// Busy is IndexOptions'.
	Busy func(holder string)
	// Watching, when set, is called once the watches are set, before the
	// first pass, with the number of directories watched.
	Watching func(dirs int)
	// Problem, when set, gets each problem of the watcher itself: a
	// directory that cannot be watched or read, events lost. The watch
	// goes on after each.
	Problem func(err error)
}

// WatchPass is one pass of Watch: what was indexed and why.
type WatchPass struct {
	Trigger string       // "start" (the first pass), "change" or "rescan"
	Files   []string     // for "change", the paths reported changed: absolute, sorted (a path may be gone)
	Summary IndexSummary // what the pass did (Index's summary, without remembering)
}

// watchPass is one pass of Watch: a refresh, or over sessions whose search
// text a first `grove index` left pending (killed, or stopped), the cold
// build that index would run (coldIndex): a refresh would count them
// unchanged, their text not stored (SPEC §6).
func (ix *Indexer) watchPass(ctx context.Context, o IndexOptions) (IndexSummary, error) {
	if !ix.db.IsServer() {
		if pending, err := ix.db.TextPending(ctx); err == nil && pending {
			if sum, err, cold := ix.coldIndex(ctx, o); cold {
				return sum, err
			}
		}
	}
	return ix.refresh(ctx, o)
}

// Watch is `grove watch` (SPEC §6): it watches opts.Roots, indexes every
// session file below them once (trigger "start", then remembers the roots
// for Rebuild as Index does), then each batch of changed files (trigger
// "change": a file removed leaves the index) and every opts.Rescan all of
// them again ("rescan"), calling onPass after each pass. Watches are set
// before the first pass, so nothing changed during it is missed.
//
// It returns nil when ctx ends (Ctrl-C: the file being indexed is
// finished or left as it was); the index failing, or onPass's error, ends
// it with that error; an io_error naming the roots when the watches cannot
// be set. A file that cannot be read is no error: it is in the pass's
// Summary.Failed.
func (ix *Indexer) Watch(ctx context.Context, opts WatchOptions, onPass func(WatchPass) error) error {
	quiet := opts.Quiet
	if quiet <= 0 {
		quiet = DefaultWatchQuiet
	}
	w, err := watch.New(ctx, opts.Roots, watch.Options{Quiet: quiet,
		MaxDelay: max(watch.DefaultMaxDelay, quiet), Rescan: opts.Rescan, IsSession: IsSessionFile})
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, err.Error()).In(strings.Join(opts.Roots, ":"))
	}
	defer w.Close()
	if opts.Watching != nil {
		opts.Watching(w.Dirs())
	}
	pass := func(trigger string, o IndexOptions) (stop bool, err error) {
		o.Busy = opts.Busy // another grove writing the index: wait for it, as grove index does
		sum, err := ix.watchPass(ctx, o)
		switch {
		case err != nil && ctx.Err() != nil:
			return true, nil // Ctrl-C: the file being indexed was finished or abandoned
		case err != nil:
			return true, err
		}
		ix.analyzeAfter(ctx, sum.Entries)
		return false, onPass(WatchPass{Trigger: trigger, Files: o.Files, Summary: sum})
	}
	all := IndexOptions{Roots: opts.Roots}
	if stop, err := pass("start", all); stop || err != nil {
		return err
	}
	// Like grove index, so that grove rebuild reads what the watch reads.
	if err := ix.remember(ctx, all); err != nil {
		return err
	}
	for b := range w.Batches() {
		for _, e := range b.Errors {
			if opts.Problem != nil {
				opts.Problem(e)
			}
		}
		var stop bool
		switch {
		case b.Rescan:
			stop, err = pass("rescan", all)
		case len(b.Paths) > 0:
			// Removed files too: refresh drops their sessions.
			stop, err = pass("change", IndexOptions{Files: b.Paths})
		}
		if stop || err != nil {
			return err
		}
	}
	if ctx.Err() == nil {
		return errors.New("watch: the file watcher stopped by itself")
	}
	return nil
}
