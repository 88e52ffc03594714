package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

func rebuildCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "rebuild",
		Usage:     "build a new index from the session files and swap it in (the old one stays usable until then)",
		ArgsUsage: "[FILE...]",
		Description: "Reads every session file again into a new index beside the old one (<index>.rebuild),\n" +
			"then swaps it in in one transaction: searches running meanwhile see the old index or the new one.\n" +
			"Interrupted, the old index is left as it was. Without --root or FILE it reads what `grove index`\n" +
			"and `grove watch` were asked to read into this index, else $GROVE_ROOT or ~/.pi/agent/sessions.\n" +
			"If any of it cannot be read, or no session file is found, the old index is kept (exit 1).\n" +
			"A damaged index is set aside as <index>.damaged-<time> first, never deleted.",
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

func runRebuild(ctx context.Context, g *env, opts indexOptions) error {
	// What to read, asked before a damaged index is set aside (g.open):
	// the new index must read what the old one was asked to, not the
	// default roots.
	given := len(opts.roots) > 0 || len(opts.files) > 0
	var known []index.Source
	var knownErr error
	_, statErr := os.Stat(g.dbPath)
	if !given && statErr == nil {
		known, knownErr = index.SourcesOf(ctx, g.dbPath)
	}
	a, err := g.open(ctx)
	if err != nil {
		return err
	}
	defer func() { a.Close() }()
	if !given {
		if opts.roots, opts.files, err = a.Sources(ctx); err != nil {
			damaged := a.DB().Classify(err)
			if jsonl.CodeOf(damaged) != jsonl.CodeDamagedIndex {
				return damaged
			}
			// Damage deeper than Open looks, in the sources table itself.
			if a, err = archive.ReopenDamaged(ctx, a, damaged, g.warn); err != nil {
				return err
			}
			opts.roots, opts.files = nil, nil
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
			g.warn("the damaged index does not say what it was asked to read; reading the default roots (name them with --root DIR)")
		}
		// A single file indexed once and deleted since is no reason to
		// refuse; a root that is gone is (a disk not mounted?).
		opts.files = slices.DeleteFunc(opts.files, func(f string) bool {
			_, err := os.Stat(f)
			return errors.Is(err, fs.ErrNotExist)
		})
		if len(opts.roots) == 0 && len(opts.files) == 0 {
			if opts.roots, err = defaultRoots(); err != nil {
				return err
			}
		}
	}
	iopts := archive.IndexOptions{Roots: opts.roots, Files: opts.files, Busy: g.busy}
	defer showProgress(g, &iopts)()
	sum, err := a.Rebuild(ctx, iopts)
	if errors.Is(err, context.Canceled) {
		return interruptedError{"interrupted; the index was not replaced and is as it was before the rebuild"}
	}
	if err != nil {
		return err
	}
	return reportIndex(g, a, sum)
}
