package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

func verifyCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "recompute every leaf's path by CTE over the index and by PathTo over the file; report differences and changed files",
		Flags: []cli.Flag{&cli.StringFlag{Name: "session", Usage: "only this session"}},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			return runVerify(c.Context, g, c.String("session"))
		},
	}
}

func runVerify(ctx context.Context, g *env, session string) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	rep, err := a.Verify(ctx, session)
	if err != nil {
		return err
	}
	if g.json {
		if err := writeJSON(g.stdout, rep); err != nil {
			return err
		}
	} else {
		for _, p := range rep.Problems {
			line := fmt.Sprintf("%s %s", p.Code, p.Path)
			if p.Leaf != "" {
				line += " leaf " + p.Leaf + ": index " + strings.Join(p.Index, ",") + " / file " + strings.Join(p.File, ",")
			}
			fmt.Fprintf(g.stdout, "%s: %s\n", line, p.Message)
		}
		fmt.Fprintf(g.stdout, "%s, %s: %s, %d stale\n", counted(rep.Sessions, "session", "sessions"), counted(rep.Leaves, "leaf", "leaves"), counted(rep.Mismatches, "mismatch", "mismatches"), rep.Stale)
	}
	if rep.Mismatches > 0 || rep.Stale > 0 {
		if !g.json {
			fmt.Fprintln(g.stderr, "grove: verify found problems (run `grove index` for stale files)")
		}
		return silentFailure{"verify found problems"}
	}
	return nil
}
