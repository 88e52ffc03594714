package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
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

// branchJSON is one branch at a branch point: beyond SPEC §8's shape,
// which lists only the child ids.
type branchJSON struct {
	ID      string `json:"id"`
	Leaves  int    `json:"leaves"`
	Kind    string `json:"kind"` // SPEC §4.2: branch, parallel, progress, replay or command
	Preview string `json:"preview"`
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
	bs, err := a.BranchPoints(ctx, f)
	if err != nil {
		return err
	}
	type branchPointJSON struct {
		Session  string       `json:"session"`
		Path     string       `json:"path"` // the session's file: two files may hold one session id
		ID       string       `json:"id"`
		Children []string     `json:"children"`
		Leaves   int          `json:"leaves"`
		Label    any          `json:"label"`
		Preview  string       `json:"preview"`
		Branches []branchJSON `json:"child_branches"`
		Stale    bool         `json:"stale,omitempty"`
	}
	out := []branchPointJSON{}
	for _, b := range bs {
		j := branchPointJSON{Session: b.Session.SessionID, Path: b.Session.Path, ID: b.ID, Leaves: b.Leaves, Preview: b.Preview, Stale: b.Stale}
		if b.Label != "" {
			j.Label = b.Label
		}
		for _, br := range b.Branches {
			j.Children = append(j.Children, br.ID)
			j.Branches = append(j.Branches, branchJSON{ID: br.ID, Leaves: br.Leaves, Kind: br.Kind, Preview: br.Preview})
		}
		out = append(out, j)
	}
	if g.json {
		return writeJSON(g.stdout, map[string]any{"branches": out})
	}
	if len(bs) == 0 {
		return noneInPicked(ctx, g, a, "branch points", f)
	}
	ids := make([]string, len(bs))
	for i, b := range bs {
		ids[i] = b.Session.SessionID
	}
	sid := shortIDs(ids)
	tw := table(g.stdout)
	fmt.Fprintln(tw, "SESSION\tNAME\tBRANCH POINT\tLEAVES\tLABEL\tPREVIEW")
	for _, b := range bs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", idCell(sid[b.Session.SessionID]), clipWidth(cell(orDash(b.Session.Name)), nameColumns), idCell(b.ID), b.Leaves, clipWidth(cell(orDash(b.Label)), nameColumns), cell(b.Preview))
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
