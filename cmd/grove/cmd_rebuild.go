package main

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
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
			"A damaged index is set aside as <index>.damaged-<time> first, never deleted; with nothing left\n" +
			"to keep, what can be read is then swapped in (exit 1 if anything could not be read).\n" + rootsHelp,
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
	if archive.IsTeamIndex(g.dbPath) {
		return runRebuildStored(ctx, g, opts)
	}
	// Where no index was there before, an interrupted rebuild made none.
	fi, statErr := os.Stat(g.dbPath)
	fresh := errors.Is(statErr, fs.ErrNotExist) || (statErr == nil && fi.Mode().IsRegular() && fi.Size() == 0)
	var defaults []archive.DefaultRoot
	ropts := archive.RebuildOptions{Roots: opts.roots, Files: opts.files, PrivateDir: g.dbPath == defaultDB(),
		Warn: g.warn, Busy: g.busy, Source: g.source, NoKeep: !keepOn(g.noKeep),
		Defaults: func(doing string) ([]string, error) {
			roots, found, err := defaultRoots(doing)
			if err == nil {
				noteRoots(g, found)
				defaults = found
			}
			return roots, err
		}}
	defer showProgress(g, &ropts.Progress)()
	sum, err := archive.Rebuild(ctx, g.dbPath, ropts)
	if errors.Is(err, context.Canceled) {
		if fresh {
			return interruptedError{"interrupted; no index was made"}
		}
		return interruptedError{"interrupted; " + archive.NotReplaced + " and is as it was before the rebuild"}
	}
	if err != nil {
		return err
	}
	sum.DefaultRoots = defaults
	return reportIndex(g, g.dbPath, sum)
}

// runRebuildStored is `grove rebuild` with the index in PostgreSQL (SPEC
// §10): the sessions of --source (every source without it) are made again
// from the committed bytes the index holds, on any machine.
func runRebuildStored(ctx context.Context, g *env, opts indexOptions) error {
	if len(opts.roots) > 0 || len(opts.files) > 0 {
		return usagef("with the index in PostgreSQL, rebuild reads the committed bytes the index holds, not files: drop --root and FILE (to read this machine's files again: grove index --force)")
	}
	a, err := g.open(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	ropts := archive.StoredRebuildOptions{Busy: g.busy}
	if g.sourceGiven {
		ropts.Sources = []string{g.source}
	}
	defer showProgress(g, &ropts.Progress)()
	sum, err := a.RebuildStored(ctx, ropts)
	if errors.Is(err, context.Canceled) {
		return interruptedIndex(sum)
	}
	if err != nil {
		return err
	}
	return reportIndex(g, a.File(), sum)
}
