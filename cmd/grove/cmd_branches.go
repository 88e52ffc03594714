package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
)

func branchesCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "branches",
		Usage: "list branch points (entries two or more entries name as parent)",
		Flags: filterFlags,
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			return runBranches(c.Context, g, filterOf(c))
		},
	}
}

func runBranches(ctx context.Context, g *env, f archive.Filter) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	bs, err := a.Branches(ctx, f)
	if err != nil {
		return err
	}
	type branchJSON struct {
		Session  string   `json:"session"`
		ID       string   `json:"id"`
		Children []string `json:"children"`
		Leaves   int      `json:"leaves"`
	}
	out := []branchJSON{}
	for _, b := range bs {
		out = append(out, branchJSON{b.Session.SessionID, b.EntryID, b.Children, b.Leaves})
	}
	if g.json {
		return writeJSON(g.stdout, map[string]any{"branches": out})
	}
	tw := table(g.stdout)
	fmt.Fprintln(tw, "SESSION\tBRANCH POINT\tLEAVES\tCHILDREN")
	for _, b := range bs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", b.Session.SessionID, b.EntryID, b.Leaves, strings.Join(b.Children, ", "))
	}
	return tw.Flush()
}
