package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
)

func rebuildCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "rebuild",
		Usage:     "build a new index from the session files and swap it in (the old one stays usable until then)",
		ArgsUsage: "[FILE...]",
		Description: "Reads every session file again into a new index beside the old one (<index>.rebuild),\n" +
			"then swaps it in in one transaction: searches running meanwhile see the old index or the new one.\n" +
			"Interrupted, the old index is left as it was. Without --root or FILE it reads what `grove index`\n" +
			"and `grove watch` were asked to read into this index, else the default roots (see below).\n" +
			"If any of it cannot be read, or no session file is found, the old index is kept (exit 1).\n" +
			"A damaged index is set aside as <index>.damaged-<time> first, never deleted.\n" + rootsHelp,
		Flags: []cli.Flag{
			rootFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := flagsBeforeArgs(c); err != nil {
				return err
			}
			roots, err := rootsOf(c)
			if err != nil {
				return err
			}
			return runRebuild(c.Context, g, indexOptions{roots: roots, files: c.Args().Slice()})
		},
	}
}

func runRebuild(ctx context.Context, g *env, opts indexOptions) (err error) {
	// What to read, asked before a damaged index is set aside (g.open):
	// the new index must read what the old one was asked to, not the
	// default roots.
	given := len(opts.roots) > 0 || len(opts.files) > 0
	var known []index.Source
	var knownErr error
	before, statErr := os.Stat(g.dbPath)
	// No index there yet (an empty file is none either, SPEC §6). Where
	// there was no file, the one g.open makes is this rebuild's: it is
	// removed again if the rebuild fails, with the directories made for it
	// (a user's empty file is never removed).
	fresh := errors.Is(statErr, fs.ErrNotExist) || (statErr == nil && before.Mode().IsRegular() && before.Size() == 0)
	made := errors.Is(statErr, fs.ErrNotExist)
	madeDirs := missingDirs(filepath.Dir(g.dbPath))
	if !given && statErr == nil {
		known, knownErr = index.SourcesOf(ctx, g.dbPath)
	}
	a, err := g.open(ctx)
	if err != nil {
		return err
	}
	defer func() { a.Close() }()
	// A damaged index set aside by g.open, or below: the new one knows
	// nothing, and what the old one was asked to read may be lost with it.
	damaged := false
	if after, err := os.Stat(g.dbPath); statErr == nil && !fresh && (err != nil || !os.SameFile(before, after)) {
		damaged = true
	}
	if made {
		defer func() {
			if err == nil || errs.CodeOf(err) == errs.CodeIndexBusy {
				return
			}
			// Only while it holds nothing: another grove that made and
			// filled it meanwhile keeps what it made.
			if n, cerr := a.DB().CountSessions(context.WithoutCancel(ctx)); cerr != nil || n > 0 {
				return
			}
			a.Close()
			if rerr := archive.RemoveIndexFiles(g.dbPath); rerr != nil {
				g.warn(rerr.Error())
			} else {
				for _, d := range madeDirs {
					if os.Remove(d) != nil { // only while empty
						break
					}
				}
			}
			var je *errs.Error
			if errors.As(err, &je) {
				je.Message = strings.Replace(je.Message, archive.NotReplaced, "no index was made", 1)
			}
		}()
	}
	if !given {
		if opts.roots, opts.files, err = a.Sources(ctx); err != nil {
			cause := a.DB().Classify(err)
			if errs.CodeOf(cause) != errs.CodeDamagedIndex {
				return cause
			}
			// Damage deeper than Open looks, in the sources table itself.
			if a, err = archive.ReopenDamaged(ctx, a, cause, g.warn); err != nil {
				return err
			}
			opts.roots, opts.files, damaged = nil, nil, true
		}
		if len(known) == 0 || knownErr != nil {
			// The sources table is unreadable: the copy beside the index.
			known, knownErr = archive.ReadSourcesFile(g.dbPath)
		}
		if len(opts.roots) == 0 && len(opts.files) == 0 && knownErr == nil && len(known) > 0 {
			for _, s := range known {
				if s.Kind == "root" {
					opts.roots = append(opts.roots, s.Path)
				} else {
					opts.files = append(opts.files, s.Path)
				}
			}
		} else if len(opts.roots) == 0 && len(opts.files) == 0 {
			switch {
			case fresh:
				g.warn("no index at " + g.dbPath + " yet; reading the default roots (name them with --root DIR)")
			case damaged || knownErr != nil:
				g.warn("the damaged index does not say what it was asked to read; reading the default roots (name them with --root DIR)")
			default:
				g.warn("the index does not say what it was asked to read; reading the default roots (name them with --root DIR)")
			}
		}
		// A single file indexed once and deleted since is no reason to
		// refuse; a root that is gone is (a disk not mounted?).
		opts.files = slices.DeleteFunc(opts.files, func(f string) bool {
			_, err := os.Stat(f)
			return errors.Is(err, fs.ErrNotExist)
		})
		if !damaged {
			opts.roots = skipForgottenRoots(ctx, g, a, opts.roots)
		}
		if len(opts.roots) == 0 && len(opts.files) == 0 {
			if opts.roots, opts.defaults, err = defaultRoots(archive.NotReplaced); err != nil {
				return err
			}
			noteRoots(g, opts.defaults)
		}
	}
	// Damage in a page no query above read (the full-text pages, an
	// entries page): the old index is set aside as <index>.damaged-<time>
	// with a note, as damage met at open is, never copied over silently.
	if err := a.DB().QuickCheck(ctx); errs.CodeOf(err) == errs.CodeDamagedIndex {
		if a, err = archive.ReopenDamaged(ctx, a, err, g.warn); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	iopts := archive.IndexOptions{Roots: opts.roots, Files: opts.files, Busy: g.busy}
	defer showProgress(g, &iopts)()
	sum, err := a.Rebuild(ctx, iopts)
	if errors.Is(err, context.Canceled) {
		if fresh {
			return interruptedError{"interrupted; no index was made"}
		}
		return interruptedError{"interrupted; " + archive.NotReplaced + " and is as it was before the rebuild"}
	}
	if err != nil {
		return err
	}
	sum.DefaultRoots = opts.defaults
	return reportIndex(g, a, sum)
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
// read now and under which the index holds no session, each with a note on
// stderr: the new index loses nothing by not reading them, and forgets
// them. A root the index holds sessions under is kept, so that the rebuild
// fails on it and the old index is kept (a rebuild never loses what the
// index knows); so is every root when the index cannot say (damaged).
func skipForgottenRoots(ctx context.Context, g *env, a *archive.Archive, roots []string) []string {
	var known map[string]int64
	var unknown bool
	return slices.DeleteFunc(roots, func(r string) bool {
		_, statErr := os.Stat(r)
		if statErr == nil {
			return false
		}
		if known == nil && !unknown {
			var err error
			known, _, err = a.DB().FileStates(ctx)
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
		g.warn(fmt.Sprintf("skipping the remembered root %s: %s, and the index holds no session under it (the new index forgets it)",
			r, strings.TrimPrefix(archive.RootFailure(r, statErr).Message, "cannot read session root: ")))
		return true
	})
}
