package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
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

func runIndex(ctx context.Context, g *env, opts indexOptions) error {
	// When nothing at all can be read, say so without creating an index.
	if len(opts.files) == 0 && len(opts.roots) > 0 {
		if err := archive.CheckRoots(opts.roots, "nothing was indexed", rootsHint); err != nil {
			return err
		}
	}
	a, err := g.open(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	iopts := archive.IndexOptions{Roots: opts.roots, Files: opts.files, Force: opts.force, Busy: g.busy}
	defer showProgress(g, &iopts.Progress)()
	sum, err := a.Index(ctx, iopts)
	if errors.Is(err, context.Canceled) {
		return interruptedIndex(sum)
	}
	if err != nil {
		return err
	}
	sum.DefaultRoots = opts.defaults
	return reportIndex(g, a.File(), sum)
}

// interruptedIndex is the Ctrl-C error of an index run that did sum:
// files are committed in batches (up to 256 files or 8 MB read), so what
// stays is every batch committed before, counted in sum.Indexed (the
// files of the batch being read are kept only when its commit on Ctrl-C
// succeeds, and then counted).
// A first index stopped while its search text was built says so: its
// files are listed, none of their text is searchable yet.
func interruptedIndex(sum archive.IndexSummary) error {
	if sum.TextPending > 0 {
		return interruptedError{fmt.Sprintf("interrupted while building the search text; every batch committed before stays indexed (%s indexed in this run), but the search text of %s is not built (search finds none of their entries): run `grove index` again to build it",
			plural.Count(sum.Indexed, "file", "files"), plural.Count(sum.TextPending, "session", "sessions"))}
	}
	return interruptedError{fmt.Sprintf("interrupted; every batch committed before stays indexed (%s indexed in this run): run `grove index` again for the rest",
		plural.Count(sum.Indexed, "file", "files"))}
}

// reportIndex prints an index or rebuild summary: JSON, or one line and
// the index's path, and the files that could not be read on stderr.
func reportIndex(g *env, dbFile string, sum archive.IndexSummary) error {
	if g.json {
		if err := writeJSON(g.stdout, sum); err != nil {
			return err
		}
		if len(sum.Failed) > 0 {
			return silentFailure{"some files could not be read"}
		}
		return nil
	}
	fmt.Fprintf(g.stdout, "%s: %d indexed", plural.Count(sum.Files, "file", "files"), sum.Indexed)
	if sum.Appended > 0 {
		fmt.Fprintf(g.stdout, " (%d read from where they had grown)", sum.Appended)
	}
	fmt.Fprintf(g.stdout, ", %s stored, %d unchanged, %d damaged or needing repair",
		plural.Count(sum.Entries, "entry", "entries"), sum.Unchanged, sum.Damaged)
	if sum.Removed > 0 {
		fmt.Fprintf(g.stdout, ", %d removed (file gone)", sum.Removed)
	}
	if sum.Gone > 0 {
		fmt.Fprintf(g.stdout, ", %d gone (file deleted; kept, still answered)", sum.Gone)
	}
	if sum.Forgotten > 0 {
		fmt.Fprintf(g.stdout, ", %d left out (forgotten, unchanged since)", sum.Forgotten)
	}
	fmt.Fprintf(g.stdout, "\nindex: %s\n", dbFile)
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
		parts = append(parts, plural.Count(files, "file", "files"))
	}
	if dirs > 0 {
		parts = append(parts, plural.Count(dirs, "directory", "directories"))
	}
	if roots > 0 {
		parts = append(parts, plural.Count(roots, "root", "roots"))
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
