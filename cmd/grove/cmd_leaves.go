package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
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

type leafJSON struct {
	Session   string `json:"session"`
	ID        string `json:"id"`
	Line      int    `json:"line"` // the leaf's physical line: tells apart leaves that share a duplicated id
	Type      string `json:"type"`
	Role      any    `json:"role"`
	Depth     *int   `json:"depth"`
	Timestamp any    `json:"timestamp"`
	Active    bool   `json:"active"`
	Kind      string `json:"kind"` // branch for a real leaf, else the first other kind on its path (SPEC §4.2)
	Preview   string `json:"preview"`
	Label     any    `json:"label"`
	Name      string `json:"session_name"`    // the session's pi name, "" if none
	Path      string `json:"path"`            // the session\'s file: two files may hold one session id
	Stale     bool   `json:"stale,omitempty"` // the file changed since it was indexed: no preview, run grove index
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
	leaves, err := a.Leaves(ctx, f)
	if err != nil {
		return err
	}
	out := []leafJSON{}
	for _, l := range leaves {
		j := leafJSON{Session: l.Session.SessionID, ID: l.EntryID, Line: l.Line, Type: l.Type, Depth: l.Depth,
			Timestamp: rfc3339(l.TsMs), Active: l.Active, Kind: l.PathKind, Preview: l.Preview, Name: l.Session.Name, Path: l.Session.Path, Stale: l.Stale}
		if l.Role != nil {
			j.Role = *l.Role
		}
		if l.Label != "" {
			j.Label = l.Label
		}
		out = append(out, j)
	}
	if g.json {
		return writeJSON(g.stdout, map[string]any{"leaves": out})
	}
	ids := make([]string, len(leaves))
	for i, l := range leaves {
		ids[i] = l.Session.SessionID
	}
	sid := shortIDs(ids)
	tw := table(g.stdout)
	kindHead := ""
	if f.All {
		kindHead = "KIND\t"
	}
	fmt.Fprintln(tw, "TIME (UTC)\tSESSION\tNAME\tLEAF\tLINE\tTYPE\t"+kindHead+"DEPTH\tLABEL\tLAST USER MESSAGE")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", short(l.TsMs), idCell(sid[l.Session.SessionID]), clipWidth(cell(orDash(l.Session.Name)), nameColumns),
			id, l.Line, typ, depth, clipWidth(cell(orDash(l.Label)), nameColumns), cell(l.Preview))
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
	warned := map[string]bool{}
	for _, l := range leaves {
		if l.Stale && !warned[l.Session.Path] {
			warned[l.Session.Path] = true
			fmt.Fprintf(g.stderr, "grove: %s changed since it was indexed; its leaves are shown without previews (run `grove index`)\n", l.Session.Path)
		}
	}
	return nil
}
