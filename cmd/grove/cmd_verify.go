package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/grove-sessions/grove/internal/kept"
	"github.com/grove-sessions/grove/internal/plural"
	"github.com/urfave/cli/v2"
)

func verifyCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check every page of the index (SQLite quick_check: damaged_index, fixed by grove rebuild), then recompute every leaf's path by CTE over the index and by PathTo over the file; report differences, changed files and every duplicated id (exit 1 only for differences and changed files)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "session", Usage: "only this session"}, dialectFlag()},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			if err := checkDialect(c, "verify"); err != nil {
				return err
			}
			return runVerify(c.Context, g, c.String("session"), c.String("dialect"))
		},
	}
}

func runVerify(ctx context.Context, g *env, session, dialect string) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	rep, err := a.VerifyDialect(ctx, session, dialect)
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
				line += " leaf " + p.Leaf
			}
			if p.Index != nil || p.File != nil {
				line += ": index " + strings.Join(p.Index, ",") + " / file " + strings.Join(p.File, ",")
			}
			fmt.Fprintf(g.stdout, "%s: %s\n", cell(line), cell(p.Message))
		}
		summary := fmt.Sprintf("%s, %s: %s, %d stale", plural.Count(rep.Sessions, "session", "sessions"), plural.Count(rep.Leaves, "leaf", "leaves"), plural.Count(rep.Mismatches, "mismatch", "mismatches"), rep.Stale)
		if rep.Damaged > 0 {
			summary += ", " + plural.Count(rep.Damaged, "damaged kept copy", "damaged kept copies")
		}
		if rep.TextPending > 0 {
			summary += fmt.Sprintf(", %d without search text", rep.TextPending)
		}
		if rep.Duplicates > 0 {
			// Damage in the files, which the index records rightly: reported,
			// but no failure of verify.
			summary += fmt.Sprintf("; %s in the files (see `grove recover FILE`)", plural.Count(rep.Duplicates, "duplicated id", "duplicated ids"))
		}
		fmt.Fprintln(g.stdout, summary)
		if n := len(rep.KeptOnly); n > 0 {
			fmt.Fprintf(g.stdout, "%s only in the kept store (files gone, or earlier versions of rewritten files):\n", plural.Count(n, "session", "sessions"))
			for _, p := range rep.KeptOnly {
				fmt.Fprintf(g.stdout, "  %s\n", cell(p))
			}
		}
	}
	if rep.Mismatches > 0 || rep.Stale > 0 || rep.Damaged > 0 || rep.TextPending > 0 {
		if !g.json {
			if rep.TextPending > 0 {
				fmt.Fprintf(g.stderr, "grove: the search text of %s is not in the index (a first `grove index` is building it, or was stopped before it finished): run `grove index` to build it\n", plural.Count(rep.TextPending, "session", "sessions"))
			}
			if rep.Damaged > 0 {
				fmt.Fprintf(g.stderr, "grove: %s damaged: %s\n", plural.Count(rep.Damaged, "kept copy is", "kept copies are"), kept.DamagedHint)
			}
			if rep.Mismatches > 0 || rep.Stale > 0 {
				fmt.Fprintln(g.stderr, "grove: verify found problems (run `grove index` for stale files)")
			}
		}
		return silentFailure{"verify found problems"}
	}
	return nil
}
