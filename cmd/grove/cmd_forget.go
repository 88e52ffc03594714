package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

const forgetHelp = `Removes sessions from the index for good: their entries, search text,
diagnostics and labels, the kept store's copies of their files (and, in a
team's index, their committed bytes). It remembers each file's identity
(its stat, the length of its committed lines and fingerprints of their
first and last 4 KiB), so that grove index, watch and rebuild leave the
file out while its committed lines are the same. A touch, or the same
bytes copied back, keep it out; a committed line added, changed or removed
(the agent went on with the session, or wrote another in its place) brings
the whole file back at the next grove index. The session files themselves
are never changed. Forks and sub-agents of a forgotten session stay
indexed and answer as before.

Name sessions (an id, a unique id prefix of 4+ characters, or a file path),
or pick them with --workspace (sessions in that directory or below it)
and --before (sessions last modified before that time), not both.

The sessions are listed on stderr and grove asks before it forgets them;
--yes forgets without asking, and is needed when stdin is not a terminal.
--json writes {"forgotten":[{"id","source","path","dialect","workspace"}...]}.`

func forgetCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:        "forget",
		Usage:       "remove sessions from the index for good; their files are left out of later runs while unchanged",
		ArgsUsage:   "[SESSION...]",
		Description: forgetHelp,
		Flags: []cli.Flag{
			workspaceFlag(),
			&cli.StringFlag{Name: "before", Usage: "only sessions last modified before `TIME`: 2026-01-05 (local midnight), an RFC 3339 time, or a span back from now (30d)"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "forget without asking (needed when stdin is not a terminal)"},
		},
		Action: func(c *cli.Context) error {
			if err := flagsBeforeArgs(c); err != nil {
				return err
			}
			ws, err := workspaceOf(c)
			if err != nil {
				return err
			}
			f := archive.ForgetFilter{Names: c.Args().Slice(), Workspace: ws}
			if c.IsSet("before") {
				if f.Before, err = archive.ParseWhen(c.String("before"), time.Now(), false); err != nil {
					return usagef("forget --before: %v", err)
				}
			}
			switch {
			case len(f.Names) > 0 && (c.IsSet("workspace") || c.IsSet("before")):
				return usagef("forget: name sessions or pick them with --workspace/--before, not both")
			case len(f.Names) == 0 && !c.IsSet("workspace") && !c.IsSet("before"):
				return usagef("forget: name the sessions to forget, or pick them with --workspace or --before")
			}
			ask := !c.Bool("yes")
			if ask && !isatty.IsTerminal(os.Stdin.Fd()) && !isatty.IsCygwinTerminal(os.Stdin.Fd()) {
				return usagef("forget: stdin is not a terminal to ask on; give --yes to forget without asking")
			}
			var in io.Reader
			if ask {
				in = os.Stdin
			}
			return runForget(c.Context, g, f, in)
		},
	}
}

type forgottenJSON struct {
	ID        string `json:"id"`
	Source    string `json:"source"`
	Path      string `json:"path"`
	Dialect   string `json:"dialect"`
	Workspace string `json:"workspace"`
}

// runForget forgets the sessions f picks, after asking on stderr and
// reading the answer from ask when ask is not nil.
func runForget(ctx context.Context, g *env, f archive.ForgetFilter, ask io.Reader) error {
	a, err := g.open(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if f.Workspace != "" {
		if err := workspaceFilter(ctx, a, &f.Workspace); err != nil {
			return err
		}
	}
	picked, err := a.ForgetPick(ctx, f)
	if err != nil {
		return err
	}
	if len(picked) > 0 && ask != nil {
		fmt.Fprintf(g.stderr, "grove forget: %s to remove from the index for good:\n", plural.Count(len(picked), "session", "sessions"))
		for _, s := range picked {
			fmt.Fprintf(g.stderr, "  %s  %s  %s\n", cell(s.SessionID), s.Dialect, cell(s.Path))
		}
		fmt.Fprintf(g.stderr, "forget %s? [y/N] ", plural.Count(len(picked), "session", "sessions"))
		line, _ := bufio.NewReader(ask).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			return errors.New("not confirmed: nothing was forgotten")
		}
	}
	if len(picked) > 0 {
		if err := a.Forget(ctx, picked, g.busy); err != nil {
			return err
		}
	}
	if g.json {
		out := struct {
			Forgotten []forgottenJSON `json:"forgotten"`
		}{Forgotten: []forgottenJSON{}}
		for _, s := range picked {
			out.Forgotten = append(out.Forgotten, forgottenJSON{ID: s.SessionID, Source: s.Source, Path: s.Path, Dialect: string(s.Dialect), Workspace: s.Workspace})
		}
		return writeJSON(g.stdout, out)
	}
	if len(picked) == 0 {
		fmt.Fprintln(g.stdout, "no session to forget")
		return nil
	}
	for _, s := range picked {
		fmt.Fprintf(g.stdout, "forgot %s  %s\n", cell(s.SessionID), cell(s.Path))
	}
	fmt.Fprintf(g.stdout, "%s forgotten (each file stays out of the index while its committed lines are unchanged)\nindex: %s\n", plural.Count(len(picked), "session", "sessions"), a.File())
	return nil
}
