package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

func workspacesCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "workspaces",
		Usage: "list workspaces with their sessions and entries",
		Flags: []cli.Flag{&cli.StringFlag{Name: "workspace", Usage: "only workspaces that are `DIR` or below it (/a/b takes /a/b and /a/b/c, not /a/bc); " +
			workspaceArgs}, dialectFlag()},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			if err := checkDialect(c, "workspaces"); err != nil {
				return err
			}
			ws, err := workspaceOf(c)
			if err != nil {
				return err
			}
			return runWorkspaces(c.Context, g, ws, c.String("dialect"))
		},
	}
}

func runWorkspaces(ctx context.Context, g *env, dir, dialect string) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := workspaceFilter(ctx, a, &dir); err != nil {
		return err
	}
	doc, err := jsondoc.ListWorkspaces(ctx, a, dir, dialect)
	if err != nil {
		return err
	}
	ws := doc.Listed
	if g.json {
		return writeJSON(g.stdout, doc)
	}
	if len(ws) == 0 {
		return nothingMatched(ctx, g, a, "workspaces", describe(archive.Filter{Workspace: dir, Dialect: dialect}))
	}
	tw := table(g.stdout)
	fmt.Fprintln(tw, "WORKSPACE\tSESSIONS\tENTRIES\tMODIFIED (UTC)")
	for _, w := range ws {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", cell(orDash(w.Workspace)), w.Sessions, w.Entries, short(w.ModifiedMs))
	}
	return tw.Flush()
}
