package ingest

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
)

// Index is `grove index` (SPEC §6, §8): it brings the index up to date
// with the session files of opts (see IndexOptions for what is read and
// IndexSummary for what is counted), then
//
//   - when the index holds no session yet (or a run left its search text
//     pending), builds it cold: in a private file, the search text on
//     another core, the entry rows swapped in before the text (coldIndex;
//     docs/indexing.md "The first index");
//   - when the index turns out damaged on the way (a page deeper than Open
//     looks: damaged_index), sets it aside as <index>.damaged-<UTC time>
//     (SetAside; the Warn of OpenForWrite names the backup) and indexes
//     again into a new, empty index at the same path;
//   - once the run succeeds, remembers opts' roots and files for Rebuild
//     (Remember: a sources file beside the index that cannot be written is
//     a warning, the roots being in the index itself) and folds the WAL
//     into the index file;
//   - on a full disk with files indexed, remembers the roots if there is
//     room for that: the files that fit are kept (docs/indexing.md "A full disk");
//     so does a run stopped by ctx (Ctrl-C) that committed files.
//
// Errors: those of the refresh (the index failing, index_busy without
// opts.Busy, disk_full counting the files not indexed, ctx's error with
// the summary counting the files committed before) and of Remember. A
// root or file that cannot be read is no error: it is in sum.Failed.
func (ix *Indexer) Index(ctx context.Context, opts IndexOptions) (IndexSummary, error) {
	opts = ix.withRemembered(ctx, opts)
	sum, err, cold := ix.coldIndex(ctx, opts)
	if !cold {
		sum, err = ix.refresh(ctx, opts)
	} else if err == nil {
		err = ix.adoptKeptLocked(ctx, opts.Busy, &sum) // an index made again (SPEC §11)
	}
	if damaged := ix.db.Classify(err); errs.CodeOf(damaged) == errs.CodeDamagedIndex {
		if err := ix.reopenDamaged(ctx, damaged); err != nil {
			return sum, err
		}
		sum, err = ix.refresh(ctx, opts)
	}
	switch {
	case err == nil:
		ix.analyzeAfter(ctx, sum.Entries)
		err = ix.remember(ctx, opts)
		// Fold the WAL into the index file, giving its room back (SQLite
		// does on close too, but not when that fails for lack of room).
		ix.db.Checkpoint(ctx) // best effort: a WAL that stays is still whole
	case index.IsDiskFull(err) && sum.Indexed > 0:
		// Best effort, with what room is left: the -wal is truncated first
		// and folded after, so that this small write leaves none behind.
		ix.db.Checkpoint(ctx)
		ix.Remember(ctx, opts)
		ix.db.Checkpoint(ctx)
	case errors.Is(err, context.Canceled) && sum.Indexed > 0:
		// Ctrl-C: the batches committed stay, and so does where they
		// came from, for the next index and for rebuild.
		ix.Remember(context.WithoutCancel(ctx), opts)
	}
	return sum, err
}

// withRemembered is opts with, when the index holds no session yet, the
// roots and files it remembers (carried over from the sources file beside
// an index that was deleted or set aside) that can be read now: an index
// made again by `grove index` reads what `grove rebuild` would, files
// named one by one included (docs/keeping.md "The index stays
// disposable"). A new index remembers nothing, and gets opts as they are.
func (ix *Indexer) withRemembered(ctx context.Context, opts IndexOptions) IndexOptions {
	if n, err := ix.db.CountSessions(ctx); err != nil || n > 0 {
		return opts
	}
	srcs, err := ix.db.Sources(ctx)
	if err != nil || len(srcs) == 0 {
		return opts
	}
	roots, files := slices.Clone(opts.Roots), slices.Clone(opts.Files)
	for _, s := range srcs {
		switch {
		case s.Kind == "root" && !slices.Contains(roots, s.Path) && readableDir(s.Path):
			roots = append(roots, s.Path)
		case s.Kind == "file" && !slices.Contains(files, s.Path):
			if fi, err := os.Stat(s.Path); err == nil && fi.Mode().IsRegular() {
				files = append(files, s.Path)
			}
		}
	}
	opts.Roots, opts.Files = roots, files
	return opts
}

// remember is Remember, where a sources file beside the index that cannot
// be written is a warning through a.warn, not a failure: the roots are in
// the index's own table, and the next index or watch writes the file again.
func (ix *Indexer) remember(ctx context.Context, opts IndexOptions) error {
	err := ix.Remember(ctx, opts)
	var sf *SourcesFileError
	if errors.As(err, &sf) {
		ix.note("warning: " + err.Error() + " (the roots are kept in the index itself; grove writes this file again next time)")
		return nil
	}
	return err
}

// reopenDamaged is OpenForWrite's remedy for damage met after the index
// was opened: cause is a damaged_index error of a query or an ingest (see
// index.Classify). It closes the index, sets it aside (SetAside, with a
// note naming the backup) and opens a new, empty index at the same path in
// its place, unless another grove set it aside first.
func (ix *Indexer) reopenDamaged(ctx context.Context, cause error) error {
	dbPath, opened := ix.db.File(), ix.opened
	ix.db.Close()
	if err := setAsideDamaged(dbPath, opened, cause, ix.warn); err != nil {
		return err
	}
	db, err := index.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	ix.db = db
	ix.keepOn(db)
	ix.opened, _ = os.Stat(dbPath)
	carrySources(ctx, ix)
	return nil
}

// carrySources gives a new index that replaces a damaged one the sources
// the damaged one remembered, from the copy beside it (SourcesPath, which
// SetAside leaves in place), so that the next Remember adds to them rather
// than replacing them and Rebuild reads the roots the user named (docs/indexing.md
// "grove rebuild"). Best effort: without the copy the new index knows only
// what it is asked to read next.
func carrySources(ctx context.Context, ix *Indexer) {
	if srcs, err := ReadSourcesFile(ix.db.File()); err == nil && len(srcs) > 0 {
		ix.db.AddSources(ctx, srcs)
	}
}

// CheckRoots returns the error of a run none of whose roots can be read as
// a directory, naming each one's reason (no such directory, symlink loop,
// not a directory) and what was not done (doing: "nothing was indexed"),
// with hint as the error's hint; nil when one of them can be read. A
// command calls it before opening the index, so that nothing is made when
// nothing can be read. Errors: io_error, its Path the roots joined by ":".
func CheckRoots(roots []string, doing, hint string) error {
	var reasons []string
	for _, r := range roots {
		fi, err := os.Stat(r)
		if err == nil && fi.IsDir() {
			return nil
		}
		if err == nil {
			err = syscall.ENOTDIR
		}
		reasons = append(reasons, RootFailure(r, err).Message)
	}
	if len(reasons) == 0 {
		return nil
	}
	msg := reasons[len(reasons)-1]
	if len(slices.Compact(slices.Clone(reasons))) > 1 {
		msg = "cannot read any session root: "
		for i, r := range roots {
			if i > 0 {
				msg += "; "
			}
			msg += r + ": " + strings.TrimPrefix(reasons[i], "cannot read session root: ")
		}
	}
	return errs.New(errs.CodeIO, msg+"; "+doing).In(strings.Join(roots, ":")).WithHint(hint)
}

// SplitRoots divides roots into those that are directories now and the
// others, each with why it is not (RootFailure), in the order given.
func SplitRoots(roots []string) (dirs []string, missing []Failure) {
	for _, r := range roots {
		fi, err := os.Stat(r)
		if err == nil && fi.IsDir() {
			dirs = append(dirs, r)
			continue
		}
		if err == nil {
			err = syscall.ENOTDIR
		}
		missing = append(missing, RootFailure(r, err))
	}
	return dirs, missing
}

// MakePrivateDir makes dir, an index's own directory, 0700 (SPEC §6), with
// a note through warn for a mode changed. Errors: io_error naming dir.
func MakePrivateDir(dir string, warn func(string)) error {
	if err := index.Tighten(index.DirMode, warn, dir); err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot make the index directory private (0700): "+errs.PathReason(err)).In(dir)
	}
	return nil
}

// AnalyzeEntries is how many entries one run stores, at least, before in
// PostgreSQL it has the server gather the planner's statistics again
// (index.DB.AnalyzeAfter: they must also be a tenth of what it held).
const AnalyzeEntries = 2000

// analyzeAfter has a PostgreSQL index gather its planner statistics after
// a run that stored entries entries, when they are many (AnalyzeEntries,
// and a tenth of the index): a database freshly loaded has none until
// autovacuum comes round, and the planner then walks whole indexes (a
// search took 0.30-0.54 s instead of 0.15-0.26 s on 10,000 sessions,
// BENCHMARKS.md). Best effort: an index without fresh statistics still
// answers.
func (ix *Indexer) analyzeAfter(ctx context.Context, entries int) {
	ix.db.AnalyzeAfter(ctx, entries, AnalyzeEntries)
}
