package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
)

func workspacesCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "workspaces",
		Usage: "list workspaces with their sessions and entries",
		Flags: []cli.Flag{&cli.StringFlag{Name: "workspace", Usage: "only workspaces that are `DIR` or below it (/a/b takes /a/b and /a/b/c, not /a/bc); " +
			". and relative paths are from the current directory"}},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			ws, err := workspaceOf(c)
			if err != nil {
				return err
			}
			return runWorkspaces(c.Context, g, ws)
		},
	}
}

func runWorkspaces(ctx context.Context, g *env, dir string) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	ws, err := a.Workspaces(ctx, dir)
	if err != nil {
		return err
	}
	type wsJSON struct {
		Workspace string `json:"workspace"`
		Sessions  int    `json:"sessions"`
		Entries   int    `json:"entries"`
		Modified  any    `json:"modified"`
	}
	out := []wsJSON{}
	for _, w := range ws {
		out = append(out, wsJSON{w.Workspace, w.Sessions, w.Entries, rfc3339(w.ModifiedMs)})
	}
	if g.json {
		return writeJSON(g.stdout, map[string]any{"workspaces": out})
	}
	if len(ws) == 0 {
		return nothingMatched(ctx, g, a, "workspaces", describe(archive.Filter{Workspace: dir}))
	}
	tw := table(g.stdout)
	fmt.Fprintln(tw, "WORKSPACE\tSESSIONS\tENTRIES\tMODIFIED (UTC)")
	for _, w := range ws {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", cell(orDash(w.Workspace)), w.Sessions, w.Entries, short(w.ModifiedMs))
	}
	return tw.Flush()
}
