package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

func branchesCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "branches",
		Usage: "list branch points (entries two or more entries name as parent) with their child branches and the leaves each holds",
		Flags: filterFlags(),
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			f, err := filterOf(c)
			if err != nil {
				return err
			}
			return runBranches(c.Context, g, f)
		},
	}
}

func runBranches(ctx context.Context, g *env, f archive.Filter) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := workspaceFilter(ctx, a, &f.Workspace); err != nil {
		return err
	}
	doc, err := jsondoc.ListBranches(ctx, a, f)
	if err != nil {
		return err
	}
	bs := doc.Listed
	if g.json {
		return writeJSON(g.stdout, doc)
	}
	if len(bs) == 0 {
		return noneInPicked(ctx, g, a, "branch points", f)
	}
	ids := make([]string, len(bs))
	for i, b := range bs {
		ids[i] = b.Session.SessionID
	}
	sid := shortIDs(ids)
	files := fileColumn(ctx, a, ids)
	tw := table(g.stdout)
	fileHead := ""
	if files {
		fileHead = "\tFILE"
	}
	fmt.Fprintln(tw, "SESSION\tNAME\tBRANCH POINT\tLEAVES\tLABEL\tPREVIEW"+fileHead)
	for _, b := range bs {
		file := ""
		if files {
			file = "\t" + cell(b.Session.Path)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s%s\n", idCell(sid[b.Session.SessionID]), clipWidth(cell(orDash(b.Session.Name)), nameColumns), idCell(b.ID), b.Leaves, clipWidth(cell(orDash(b.Label)), nameColumns), cell(b.Preview), file)
		for k, br := range b.Branches {
			edge := "├── "
			if k == len(b.Branches)-1 {
				edge = "└── "
			}
			kind := ""
			if br.Kind != "branch" {
				kind = " (" + br.Kind + ")"
			}
			fmt.Fprintf(tw, "\t\t%s%s%s\t%d\t\t%s\n", edge, idCell(br.ID), kind, br.Leaves, cell(br.Preview))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	warned := map[string]bool{}
	for _, b := range bs {
		if b.Stale && !warned[b.Session.Path] {
			warned[b.Session.Path] = true
			fmt.Fprintf(g.stderr, "grove: %s changed since it was indexed; its branch points are shown without previews (run `grove index`)\n", b.Session.Path)
		}
	}
	return nil
}
