package main

import (
	"context"
	"fmt"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
	"github.com/urfave/cli/v2"
)

func repairCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "repair",
		Usage:     "cut a torn last line (unterminated tail) off a session file, keeping a backup of the bytes it removes",
		ArgsUsage: "FILE",
		Description: "Refuses a file without an unterminated tail. Otherwise copies the tail (the bytes it removes, and\n" +
			"only those) to FILE.<time>.bak beside it and flushes it to disk, then truncates FILE to its committed\n" +
			"prefix: it needs room for the tail only, and a crash in between loses nothing. With no room for the\n" +
			"backup it refuses (disk_full) and changes nothing. Bad lines are never touched.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "dry-run", Usage: "print the plan and change nothing"}},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 1); err != nil {
				return err
			}
			return runRepair(c.Context, g, c.Args().First(), c.Bool("dry-run"))
		},
	}
}

func runRepair(ctx context.Context, g *env, path string, dryRun bool) error {
	plan, err := archive.Repair(ctx, path, dryRun)
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(g.stdout, plan)
	}
	verb := "truncated"
	if dryRun {
		verb = "would truncate"
	}
	fmt.Fprintf(g.stdout, "%s %s at byte %d, removing %s of unterminated tail\n", verb, path, plan.TruncateAt, plural.Count(int(plan.RemovedBytes), "byte", "bytes"))
	if dryRun {
		fmt.Fprintf(g.stdout, "backup would be: %s\n", plan.Backup)
	} else {
		fmt.Fprintf(g.stdout, "backup of the removed tail: %s\n", plan.Backup)
	}
	return nil
}
