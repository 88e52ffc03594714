package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

type watchOptions struct {
	roots    []string
	debounce time.Duration // quiet time before a batch of changes is indexed
	rescan   time.Duration // period of the full pass that catches missed events
}

// watchFlags are --debounce and --rescan, of watch and serve.
func watchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "debounce", Value: archive.DefaultWatchQuiet, Usage: "index a batch of changes once none came for this long"},
		&cli.DurationFlag{Name: "rescan", Value: archive.DefaultWatchRescan, Usage: "index everything again this often, to catch missed changes"},
	}
}

func watchCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "watch",
		Usage: "keep the index current as session files change, until Ctrl-C",
		Description: rootsHelp + "\n" +
			"Every directory below them is watched (new ones too; symlinked ones are not followed). First every *.jsonl\n" +
			"file is indexed, as by grove index; then each batch of changed files, once changes pause for\n" +
			"--debounce (at most 2 s, or --debounce if longer, after the first while they go on); and every\n" +
			"--rescan all of them again, to catch changes the system did not report. The first pass, and\n" +
			"each later one that changed something, prints one line (local time); with --json one compact\n" +
			"JSON document per pass, the summary of grove index plus \"time\" (RFC 3339, UTC) and \"trigger\"\n" +
			"(\"start\", \"change\" or \"rescan\"): watch prints one document per pass (NDJSON), the one\n" +
			"exception to exactly one document. A file that cannot be read is named on stderr once (with\n" +
			"--json, in \"failed\"), and the watch goes on; the index itself failing ends it (exit 1).\n" +
			"Ctrl-C or SIGTERM stops it (the file being indexed is finished or left as it was): exit 0.",
		Flags: append([]cli.Flag{rootFlag()}, watchFlags()...),
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			roots, err := rootsOf(c)
			if err != nil {
				return err
			}
			opts := watchOptions{roots: roots, debounce: c.Duration("debounce"), rescan: c.Duration("rescan")}
			if len(opts.roots) == 0 {
				var found []archive.DefaultRoot
				if opts.roots, found, err = defaultRoots("nothing is watched"); err != nil {
					return err
				}
				noteRoots(g, found)
			}
			if opts.debounce <= 0 || opts.rescan <= 0 {
				return usagef("watch: --debounce and --rescan take a positive duration, such as 250ms or 5m")
			}
			return runWatch(c.Context, g, opts)
		},
	}
}

func runWatch(ctx context.Context, g *env, opts watchOptions) error {
	// A root that is missing now is left out (said once), rather than
	// reported as a failure by every rescan.
	roots, missing := archive.SplitRoots(opts.roots)
	if len(roots) == 0 {
		return archive.CheckRoots(opts.roots, "nothing is watched", rootsHint)
	}
	for _, m := range missing {
		fmt.Fprintf(g.stderr, "grove: %s: %s; not watched\n", m.Path, m.Message)
	}
	a, err := g.open(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	out := &watchOutput{g: g, reported: map[string]string{}}
	err = a.Watch(ctx, archive.WatchOptions{Roots: roots, Quiet: opts.debounce, Rescan: opts.rescan, Busy: g.busy,
		Watching: func(dirs int) {
			fmt.Fprintf(g.stderr, "grove: watching %d %s (%d %s) for *.jsonl changes; Ctrl-C stops\n",
				len(roots), plural.Noun(len(roots), "root", "roots"), dirs, plural.Noun(dirs, "directory", "directories"))
		},
		Problem: func(err error) { fmt.Fprintf(g.stderr, "grove: %s\n", cell(err.Error())) },
	}, func(p archive.WatchPass) error { return out.pass(p.Trigger, p.Files, p.Summary) })
	return out.stopped(err)
}

// watchOutput prints what each pass of grove watch did.
type watchOutput struct {
	g *env
	// reported is each failing path's last failure printed ("code message"),
	// so that a file that stays unreadable is not named again every rescan.
	reported map[string]string
}

// pass prints one pass: on stdout a line (or with --json a document) when
// it is the first pass or changed something or failed anew; new failures
// on stderr. files are the paths a change pass was given.
func (o *watchOutput) pass(trigger string, files []string, sum archive.IndexSummary) error {
	if trigger == "change" {
		// A file created and removed within one batch was never indexed:
		// its being gone is no failure.
		sum.Failed = slices.DeleteFunc(slices.Clone(sum.Failed), func(f archive.Failure) bool {
			_, err := os.Lstat(f.Path)
			return errors.Is(err, fs.ErrNotExist) && slices.Contains(files, f.Path)
		})
	}
	fresh := o.fresh(trigger, files, sum.Failed)
	changed := sum.Indexed > 0 || sum.Removed > 0
	now := time.Now()
	if o.g.json {
		if trigger != "start" && !changed && len(fresh) == 0 {
			return nil
		}
		return writeJSON(o.g.stdout, struct {
			Time    string `json:"time"`
			Trigger string `json:"trigger"`
			archive.IndexSummary
		}{now.UTC().Format(time.RFC3339), trigger, sum})
	}
	if trigger == "start" || changed {
		if _, err := fmt.Fprintf(o.g.stdout, "%s %s: %d indexed (%s), %d unchanged, %d removed\n",
			now.Format("15:04:05"), plural.Count(sum.Files, "file", "files"), sum.Indexed, plural.Count(sum.Entries, "entry", "entries"), sum.Unchanged, sum.Removed); err != nil {
			return err
		}
	}
	for _, f := range fresh {
		fmt.Fprintf(o.g.stderr, "grove: %s: %s [%s]\n", cell(f.Path), cell(f.Message), f.Code)
	}
	return nil
}

// fresh returns the failures not printed before, and forgets the paths
// that no longer fail: those of a change pass's files, or any after a
// full pass.
func (o *watchOutput) fresh(trigger string, files []string, failed []archive.Failure) []archive.Failure {
	var out []archive.Failure
	failing := map[string]bool{}
	for _, f := range failed {
		failing[f.Path] = true
		if key := string(f.Code) + " " + f.Message; o.reported[f.Path] != key {
			o.reported[f.Path] = key
			out = append(out, f)
		}
	}
	for p := range o.reported {
		if !failing[p] && (trigger != "change" || slices.Contains(files, p)) {
			delete(o.reported, p)
		}
	}
	return out
}

// stopped ends the watch: with err when the index failed, else (Ctrl-C)
// with a line on stderr and exit status 0.
func (o *watchOutput) stopped(err error) error {
	if err != nil {
		return err
	}
	fmt.Fprintln(o.g.stderr, "grove: stopped")
	return nil
}
