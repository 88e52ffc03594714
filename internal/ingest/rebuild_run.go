package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
)

// RebuildOptions say what Rebuild reads and how it talks.
type RebuildOptions struct {
	// Roots and Files are what to read. When both are empty, Rebuild reads
	// what `grove index` and `grove watch` were asked to read into this
	// index (its sources table, else the .sources file beside it), less
	// remembered roots that are gone and hold no indexed session, and
	// single files that are gone; when that is nothing too, Defaults.
	Roots, Files []string
	// Defaults returns the default roots (SPEC §8), with doing the words
	// for what was not done if it fails ("the index was not replaced").
	// Nil means none: a rebuild with nothing to read then reads nothing.
	Defaults func(doing string) ([]string, error)
	// PrivateDir makes the index's directory 0700 first (MakePrivateDir):
	// for grove's own default location.
	PrivateDir bool
	// Warn gets one line for each note (a damaged index set aside, the
	// default roots read instead of remembered ones, a remembered root
	// skipped). May be nil.
	Warn func(msg string)
	// Busy and Progress are IndexOptions'.
	Busy     func(holder string)
	Progress func(Progress)
	// NoKeep keeps no committed bytes in the kept store (`--no-keep`,
	// Indexer.Keep); the sessions it already holds are not read either.
	NoKeep bool
	// Source names the machine the sessions read belong to (SPEC §10);
	// "" means the host name.
	Source string
}

// Rebuild is `grove rebuild` (SPEC §6, docs/indexing.md "grove rebuild") of the
// index at dbPath: a new index of opts' files is built beside it
// (RebuildPath) and swapped in in one transaction, so that readers see
// the old index or the new one. It opens the index with OpenForWrite, so a
// damaged one is set aside first (and again if damage is met deeper, in
// the sources table or a page only a full check reads), never deleted.
//
// The old index is kept, with an io_error ending in NotReplaced, when any
// file, directory or root cannot be read, or no session file is found but
// the old index holds sessions; once a damaged index was set aside there
// is none to keep, and what can be read is swapped in, with what cannot
// in the summary's Failed. Where there was no index file, the one
// Rebuild makes is removed again on failure, with the directories made
// for it, and the message says "no index was made". On ctx ending, the
// error is ctx's and the index is as it was.
func Rebuild(ctx context.Context, dbPath string, opts RebuildOptions) (sum IndexSummary, err error) {
	warn := func(msg string) {
		if opts.Warn != nil {
			opts.Warn(msg)
		}
	}
	// What to read, asked before a damaged index is set aside: the new
	// index must read what the old one was asked to, not the default roots.
	given := len(opts.Roots) > 0 || len(opts.Files) > 0
	var known []index.Source
	var knownErr error
	before, statErr := os.Stat(dbPath)
	// No index there yet (an empty file is none either, SPEC §6). Where
	// there was no file, the one opened here is this rebuild's: it is
	// removed again if the rebuild fails, with the directories made for it
	// (a user's empty file is never removed).
	fresh := errors.Is(statErr, fs.ErrNotExist) || (statErr == nil && before.Mode().IsRegular() && before.Size() == 0)
	made := errors.Is(statErr, fs.ErrNotExist)
	madeDirs := missingDirs(filepath.Dir(dbPath))
	if !given && statErr == nil {
		known, knownErr = index.SourcesOf(ctx, dbPath)
	}
	if opts.PrivateDir {
		if err := MakePrivateDir(filepath.Dir(dbPath), opts.Warn); err != nil {
			return sum, err
		}
	}
	ix, err := OpenForWrite(ctx, dbPath, opts.Warn)
	if err != nil {
		return sum, err
	}
	defer func() { ix.Close() }()
	ix.Keep(!opts.NoKeep)
	if err := ix.SetSource(ctx, opts.Source); err != nil {
		return sum, err
	}
	// A damaged index set aside by OpenForWrite, or below: the new one
	// knows nothing, and what the old one was asked to read may be lost
	// with it.
	damaged := false
	if after, err := os.Stat(dbPath); statErr == nil && !fresh && (err != nil || !os.SameFile(before, after)) {
		damaged = true
	}
	if made {
		defer func() {
			if err == nil || errs.CodeOf(err) == errs.CodeIndexBusy {
				return
			}
			// Only while it holds nothing: another grove that made and
			// filled it meanwhile keeps what it made.
			if n, cerr := ix.db.CountSessions(context.WithoutCancel(ctx)); cerr != nil || n > 0 {
				return
			}
			ix.Close()
			if rerr := RemoveIndexFiles(dbPath); rerr != nil {
				warn(rerr.Error())
			} else {
				for _, d := range madeDirs {
					if os.Remove(d) != nil { // only while empty
						break
					}
				}
			}
			if je, ok := errs.As(err); ok {
				je.Message = strings.Replace(je.Message, NotReplaced, "no index was made", 1)
			}
		}()
	}
	roots, files := opts.Roots, opts.Files
	if !given {
		if roots, files, damaged, err = ix.rebuildSources(ctx, dbPath, known, knownErr, fresh, damaged, warn, opts.Defaults); err != nil {
			return sum, err
		}
	}
	// Damage in a page no query above read (the full-text pages, an
	// entries page): the old index is set aside as <index>.damaged-<time>
	// with a note, as damage met at open is, never copied over silently.
	if err := ix.db.QuickCheck(ctx); errs.CodeOf(err) == errs.CodeDamagedIndex {
		if err := ix.reopenDamaged(ctx, err); err != nil {
			return sum, err
		}
	} else if err != nil {
		return sum, err
	}
	// Set aside as damaged, here or by OpenForWrite: the index in its
	// place is new and empty, so a file that cannot be read is no reason
	// to leave it so.
	if after, err := os.Stat(dbPath); statErr == nil && !fresh && (err != nil || !os.SameFile(before, after)) {
		damaged = true
	}
	return ix.rebuild(ctx, IndexOptions{Roots: roots, Files: files, Busy: opts.Busy, Progress: opts.Progress, partial: damaged})
}

// rebuildSources is what a rebuild given no roots or files reads: the
// roots and files the index was asked to read (its sources table, else
// known, the copy beside it), less single files deleted since and roots
// whose every file was forgotten; the default roots (defaults) when it
// says none, with a warning saying why. damaged comes back set when
// damage is met in the sources table itself: the index is then set aside
// and a new one opened in its place (reopenDamaged).
func (ix *Indexer) rebuildSources(ctx context.Context, dbPath string, known []index.Source, knownErr error, fresh, damaged bool,
	warn func(string), defaults func(doing string) ([]string, error)) (roots, files []string, _ bool, err error) {
	if roots, files, err = ix.Sources(ctx); err != nil {
		cause := ix.db.Classify(err)
		if errs.CodeOf(cause) != errs.CodeDamagedIndex {
			return nil, nil, damaged, cause
		}
		// Damage deeper than Open looks, in the sources table itself.
		if err := ix.reopenDamaged(ctx, cause); err != nil {
			return nil, nil, damaged, err
		}
		roots, files, damaged = nil, nil, true
	}
	if len(known) == 0 || knownErr != nil {
		// The sources table is unreadable: the copy beside the index.
		known, knownErr = ReadSourcesFile(dbPath)
	}
	if len(roots) == 0 && len(files) == 0 && knownErr == nil && len(known) > 0 {
		for _, s := range known {
			if s.Kind == "root" {
				roots = append(roots, s.Path)
			} else {
				files = append(files, s.Path)
			}
		}
	} else if len(roots) == 0 && len(files) == 0 {
		switch {
		case fresh:
			warn("no index at " + dbPath + " yet; reading the default roots (name them with --root DIR)")
		case damaged || knownErr != nil:
			warn("the damaged index does not say what it was asked to read; reading the default roots (name them with --root DIR)")
		default:
			warn("the index does not say what it was asked to read; reading the default roots (name them with --root DIR)")
		}
	}
	// A single file indexed once and deleted since is no reason to
	// refuse; a root that is gone is (a disk not mounted?).
	files = slices.DeleteFunc(files, func(f string) bool {
		_, err := os.Stat(f)
		return errors.Is(err, fs.ErrNotExist)
	})
	if !damaged {
		roots = ix.skipForgottenRoots(ctx, roots, warn)
	}
	if len(roots) == 0 && len(files) == 0 && defaults != nil {
		if roots, err = defaults(NotReplaced); err != nil {
			return nil, nil, damaged, err
		}
	}
	return roots, files, damaged, nil
}

// missingDirs returns dir and those of its parents that do not exist, the
// deepest first: what creating dir would make.
func missingDirs(dir string) []string {
	var out []string
	for {
		if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// skipForgottenRoots drops from the remembered roots those that cannot be
// read now and under which the index holds no session, each with a note:
// the new index loses nothing by not reading them, and forgets them. A
// root the index holds sessions under is kept, so that the rebuild fails
// on it and the old index is kept (a rebuild never loses what the index
// knows); so is every root when the index cannot say (damaged).
func (ix *Indexer) skipForgottenRoots(ctx context.Context, roots []string, warn func(string)) []string {
	var known map[string]int64
	var unknown bool
	return slices.DeleteFunc(roots, func(r string) bool {
		_, statErr := os.Stat(r)
		if statErr == nil {
			return false
		}
		if known == nil && !unknown {
			var err error
			known, _, err = ix.db.FileStates(ctx)
			unknown = err != nil
		}
		if unknown {
			return false
		}
		for p := range known {
			if r == "/" || strings.HasPrefix(p, r+"/") {
				return false
			}
		}
		warn(fmt.Sprintf("skipping the remembered root %s: %s, and the index holds no session under it (the new index forgets it)",
			r, strings.TrimPrefix(RootFailure(r, statErr).Message, "cannot read session root: ")))
		return true
	})
}
