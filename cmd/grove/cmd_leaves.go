package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

func leavesCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "leaves",
		Usage: "list leaves (entries no entry names as parent), newest activity first, with depth, label and the last user message on each path",
		Flags: filterFlags(),
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			f, err := filterOf(c)
			if err != nil {
				return err
			}
			return runLeaves(c.Context, g, f)
		},
	}
}

func runLeaves(ctx context.Context, g *env, f archive.Filter) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := workspaceFilter(ctx, a, &f.Workspace); err != nil {
		return err
	}
	doc, err := jsondoc.ListLeaves(ctx, a, f)
	if err != nil {
		return err
	}
	leaves, runs := doc.Listed, doc.RunsOf
	if g.json {
		return writeJSON(g.stdout, doc)
	}
	ids := make([]string, len(leaves))
	for i, l := range leaves {
		ids[i] = l.Session.SessionID
	}
	sid := shortIDs(ids)
	files := fileColumn(ctx, a, ids)
	tw := table(g.stdout)
	kindHead, fileHead := "", ""
	if f.All {
		kindHead = "KIND\t"
	}
	if files {
		fileHead = "\tFILE"
	}
	fmt.Fprintln(tw, "TIME (UTC)\tSESSION\tNAME\tLEAF\tLINE\tTYPE\t"+kindHead+"DEPTH\tLABEL\tLAST USER MESSAGE"+fileHead)
	for _, l := range leaves {
		id := idCell(l.EntryID)
		if l.Active {
			id += " *"
		}
		typ := l.Type
		if l.Role != nil {
			typ = *l.Role
		}
		depth := "broken"
		if l.Depth != nil {
			depth = fmt.Sprint(*l.Depth)
		}
		typ = cell(typ)
		if f.All {
			typ += "\t" + l.PathKind
		}
		file := ""
		if files {
			file = "\t" + cell(l.Session.Path)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s%s\n", short(l.TsMs), idCell(sid[l.Session.SessionID]), clipWidth(cell(orDash(l.Session.Name)), nameColumns),
			id, l.Line, typ, depth, clipWidth(cell(orDash(l.Label)), nameColumns), cell(l.Preview), file)
	}
	if len(leaves) == 0 {
		return noneInPicked(ctx, g, a, "leaves", f)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(leaves) > 0 {
		fmt.Fprintln(g.stdout, "(* = active leaf: the entry on the last line of its file, for Claude Code the last one off sidechains; TYPE is the role of a message)")
	}
	writeRunsNote(g.stdout, runs, sid)
	warned := map[string]bool{}
	for _, l := range leaves {
		if l.Stale && !warned[l.Session.Path] {
			warned[l.Session.Path] = true
			fmt.Fprintf(g.stderr, "grove: %s changed since it was indexed; its leaves are shown without previews (run `grove index`)\n", l.Session.Path)
		}
	}
	return nil
}
