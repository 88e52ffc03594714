package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

func pathCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "path",
		Usage:     "the path from the root to LEAF (default: the active leaf), by recursive CTE over the index",
		ArgsUsage: "SESSION [LEAF]",
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 2); err != nil {
				return err
			}
			return runPath(c.Context, g, c.Args().Get(0), c.Args().Get(1))
		},
	}
}

func runPath(ctx context.Context, g *env, session, leaf string) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	doc, err := jsondoc.PathTo(ctx, a, session, leaf)
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(g.stdout, doc)
	}
	p := doc.Of
	f, _ := a.OpenSession(p.Session)
	if f != nil {
		defer f.Close()
	}
	tw := table(g.stdout)
	fmt.Fprintln(tw, "LINE\tID\tTYPE\tTIME (UTC)\tPREVIEW")
	for _, e := range p.Entries {
		typ := e.Type
		if e.Role != nil {
			typ += "/" + *e.Role
		}
		preview := ""
		if f != nil {
			if raw, err := archive.ReadLine(f, p.Session.Path, e); err == nil {
				preview = archive.PreviewIn(p.Session.Dialect, raw, archive.PreviewWidth)
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", e.Line, e.EntryID, typ, short(e.TsMs), preview)
	}
	return tw.Flush()
}
