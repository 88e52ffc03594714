package main

import (
	"context"
	"errors"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/internal/pick"
)

func pickCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "pick",
		Usage:     "a terminal picker over every session: type to filter, Enter prints the resume command of the selected leaf",
		ArgsUsage: "[QUERY]",
		Description: `Lists every session of every agent, newest first. Typing filters them by
name, first message, workspace and id at once, and by full text through the
index (the last word typed is a prefix). The selected session's leaves are
beside it, the active one marked *. Keys: up/down move, Tab goes to the
leaves and Shift+Tab back, Enter resumes the selected leaf (default: the
active one), Esc or Ctrl-C quits.

Enter prints what grove resume would (cd WORKSPACE && COMMAND; --json
{"agent","cwd","argv"}), or with --exec runs it. An earlier Claude Code
entry asks for the branch's first message first.

The picker reads keys from standard input and draws on standard error,
which must be a terminal of at least 60x10 (else exit 2); standard output
takes only the command, so cmd=$(grove pick) works. Esc prints nothing and
exits 1.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "exec", Usage: "run the chosen command instead of printing it"},
		},
		Action: func(c *cli.Context) error {
			if err := flagsBeforeArgs(c); err != nil {
				return err
			}
			if c.Bool("exec") && g.json {
				return usagef("pick: --exec runs the agent, --json prints its command: give one")
			}
			return runPick(c.Context, g, strings.Join(c.Args().Slice(), " "), c.Bool("exec"))
		},
	}
}

func runPick(ctx context.Context, g *env, query string, run bool) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	r, err := pick.Run(ctx, a, pick.Options{Query: query})
	var small pick.TooSmallError
	if errors.Is(err, pick.ErrNoTerminal) || errors.As(err, &small) {
		return usageError{err} // exit 2: run where it can draw
	}
	if err != nil {
		return err
	}
	if r == nil {
		return silentFailure{"nothing was picked"}
	}
	return answerResume(g, a, r, run)
}
