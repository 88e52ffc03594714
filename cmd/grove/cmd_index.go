package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
)

type indexOptions struct {
	roots    []string
	files    []string
	force    bool
	defaults []archive.DefaultRoot // the agents' default roots among roots, when none was named
}

func indexCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "index",
		Usage:     "read session files into the index (unchanged files are skipped)",
		ArgsUsage: "[FILE...]",
		Description: rootsHelp + "\n" +
			"Every *.jsonl file below a root is indexed (a Codex home's history.jsonl and session_index.jsonl\n" +
			"are not sessions; a *.jsonl.zst is listed as unsupported_compression); FILE arguments are\n" +
			"indexed whatever their name.",
		Flags: []cli.Flag{
			rootFlag(),
			&cli.BoolFlag{Name: "force", Usage: "read every file again, even those that look unchanged"},
		},
		Action: func(c *cli.Context) error {
			if err := flagsBeforeArgs(c); err != nil {
				return err
			}
			roots, err := rootsOf(c)
			if err != nil {
				return err
			}
			opts := indexOptions{roots: roots, files: c.Args().Slice(), force: c.Bool("force")}
			if len(opts.roots) == 0 && len(opts.files) == 0 {
				var err error
				if opts.roots, opts.defaults, err = defaultRoots("nothing was indexed"); err != nil {
					return err
				}
				noteRoots(g, opts.defaults)
			}
			return runIndex(c.Context, g, opts)
		},
	}
}

// rootFlag is --root, for the commands that read session directories.
func rootFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "root", Usage: "a directory of session files (repeatable)"}
}

// unreadableRoots returns the error for roots none of which can be read as
// a directory, naming each one's reason (no such directory, symlink loop,
// not a directory), with doing what was not done ("nothing was indexed");
// nil when one of them can be read.
func unreadableRoots(roots []string, doing string) error {
	var reasons []string
	for _, r := range roots {
		fi, err := os.Stat(r)
		if err == nil && fi.IsDir() {
			return nil
		}
		if err == nil {
			err = syscall.ENOTDIR
		}
		reasons = append(reasons, archive.RootFailure(r, err).Message)
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
	return errs.New(errs.CodeIO, msg+"; "+doing).In(strings.Join(roots, ":")).WithHint(rootsHint)
}

func runIndex(ctx context.Context, g *env, opts indexOptions) error {
	// When nothing at all can be read, say so without creating an index.
	if len(opts.files) == 0 && len(opts.roots) > 0 {
		if err := unreadableRoots(opts.roots, "nothing was indexed"); err != nil {
			return err
		}
	}
	a, err := g.open(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if a != nil {
			a.Close()
		}
	}()
	iopts := archive.IndexOptions{Roots: opts.roots, Files: opts.files, Force: opts.force, Busy: g.busy}
	defer showProgress(g, &iopts)()
	sum, err := a.Index(ctx, iopts)
	if damaged := a.DB().Classify(err); errs.CodeOf(damaged) == errs.CodeDamagedIndex {
		// A damaged page deeper than Open looks: start again on a new index.
		if a, err = archive.ReopenDamaged(ctx, a, damaged, g.warn); err != nil {
			return err
		}
		sum, err = a.Index(ctx, iopts)
	}
	if err == nil {
		err = remember(ctx, g, a, iopts)
		// Fold the WAL into the index file, giving its room back (SQLite
		// does on close too, but not when that fails for lack of room).
		a.DB().Checkpoint(ctx) // best effort: a WAL that stays is still whole
	} else if index.IsDiskFull(err) && sum.Indexed > 0 {
		// The files that fit are kept: remember their roots for grove
		// rebuild, if there is room for that.
		a.Remember(ctx, iopts)
	}
	if errors.Is(err, context.Canceled) {
		return interruptedIndex(sum)
	}
	if err != nil {
		return err
	}
	sum.DefaultRoots = opts.defaults
	return reportIndex(g, a, sum)
}

// interruptedIndex is the Ctrl-C error of an index run that did sum:
// files are committed in batches (up to 256 files or 8 MB read), so what
// stays is every batch committed before, counted in sum.Indexed (the
// files of the batch being read are kept only when its commit on Ctrl-C
// succeeds, and then counted).
func interruptedIndex(sum archive.IndexSummary) error {
	return interruptedError{fmt.Sprintf("interrupted; every batch committed before stays indexed (%s indexed in this run): run `grove index` again for the rest",
		counted(sum.Indexed, "file", "files"))}
}

// reportIndex prints an index or rebuild summary: JSON, or one line and
// the index's path, and the files that could not be read on stderr.
func reportIndex(g *env, a *archive.Archive, sum archive.IndexSummary) error {
	if g.json {
		if err := writeJSON(g.stdout, sum); err != nil {
			return err
		}
		if len(sum.Failed) > 0 {
			return silentFailure{"some files could not be read"}
		}
		return nil
	}
	fmt.Fprintf(g.stdout, "%s: %d indexed", counted(sum.Files, "file", "files"), sum.Indexed)
	if sum.Appended > 0 {
		fmt.Fprintf(g.stdout, " (%d read from where they had grown)", sum.Appended)
	}
	fmt.Fprintf(g.stdout, ", %s stored, %d unchanged, %d damaged or needing repair",
		counted(sum.Entries, "entry", "entries"), sum.Unchanged, sum.Damaged)
	if sum.Removed > 0 {
		fmt.Fprintf(g.stdout, ", %d removed (file gone)", sum.Removed)
	}
	fmt.Fprintf(g.stdout, "\nindex: %s\n", a.DB().File())
	// Listed, not read (SPEC §3.5): said every run, and no failure.
	for _, f := range sum.Unsupported {
		fmt.Fprintf(g.stderr, "grove: %s: %s [%s] (%s)\n", cell(f.Path), f.Message, f.Code, f.Hint)
	}
	if len(sum.Failed) > 0 {
		for _, f := range sum.Failed {
			fmt.Fprintf(g.stderr, "grove: %s: %s [%s]\n", f.Path, f.Message, f.Code)
		}
		verb := "could not be read"
		if sum.Indexed+sum.Unchanged == 0 {
			fmt.Fprintf(g.stderr, "grove: %s %s; nothing was indexed\n", failedNouns(sum.Failed), verb)
		} else {
			fmt.Fprintf(g.stderr, "grove: %s %s; everything else was indexed\n", failedNouns(sum.Failed), verb)
		}
		return silentFailure{"some files could not be read"}
	}
	return nil
}

// failedNouns counts what an index run could not read, by kind: "1 file",
// "2 files and 1 root", "1 directory".
func failedNouns(failed []archive.Failure) string {
	var roots, dirs, files int
	for _, f := range failed {
		switch {
		case strings.HasPrefix(f.Message, "cannot read session root"), strings.HasPrefix(f.Message, "cannot read any session root"):
			roots++
		case strings.HasPrefix(f.Message, "cannot read directory"):
			dirs++
		default:
			files++
		}
	}
	var parts []string
	if files > 0 {
		parts = append(parts, counted(files, "file", "files"))
	}
	if dirs > 0 {
		parts = append(parts, counted(dirs, "directory", "directories"))
	}
	if roots > 0 {
		parts = append(parts, counted(roots, "root", "roots"))
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

// rootsOf is the --root values of c: each must name a directory, so an
// empty one (--root "", a variable that was not set) is a usage error
// naming the flag rather than a root that cannot be read.
func rootsOf(c *cli.Context) ([]string, error) {
	roots := c.StringSlice("root")
	for _, r := range roots {
		if strings.TrimSpace(r) == "" {
			return nil, usagef("--root needs a directory, not an empty string")
		}
	}
	return roots, nil
}

// remember records the roots and files of opts for grove rebuild
// (archive.Remember). When only the copy beside the index cannot be
// written, that is a warning on stderr, not a failure: the roots are in the
// index's own table, and the next index or watch writes the copy again.
func remember(ctx context.Context, g *env, a *archive.Archive, opts archive.IndexOptions) error {
	err := a.Remember(ctx, opts)
	var sf *archive.SourcesFileError
	if errors.As(err, &sf) {
		g.warn("warning: " + err.Error() + " (the roots are kept in the index itself; grove writes this file again next time)")
		return nil
	}
	return err
}
