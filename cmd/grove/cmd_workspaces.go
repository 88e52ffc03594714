package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
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
	var ws []archive.Workspace
	if dialect == "" {
		ws, err = a.Workspaces(ctx, dir)
	} else {
		ws, err = dialectWorkspaces(ctx, a, dir, dialect)
	}
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
		return nothingMatched(ctx, g, a, "workspaces", describe(archive.Filter{Workspace: dir, Dialect: dialect}))
	}
	tw := table(g.stdout)
	fmt.Fprintln(tw, "WORKSPACE\tSESSIONS\tENTRIES\tMODIFIED (UTC)")
	for _, w := range ws {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", cell(orDash(w.Workspace)), w.Sessions, w.Entries, short(w.ModifiedMs))
	}
	return tw.Flush()
}

// dialectWorkspaces is archive.Workspaces counting only the sessions of
// dialect: each workspace that is dir or below it with its sessions of
// that dialect, their entries and modified time (the latest of those with
// entries, else of all), in archive.Workspaces' order: workspaces with
// entries first, most recent first, then by name.
func dialectWorkspaces(ctx context.Context, a *archive.Archive, dir, dialect string) ([]archive.Workspace, error) {
	sessions, err := a.Pick(ctx, archive.Filter{Workspace: dir, Dialect: dialect})
	if err != nil {
		return nil, err
	}
	at := map[string]int{}
	var out []archive.Workspace
	var all []*int64 // all[i]: the latest modified time of out[i]'s sessions, with entries or not
	later := func(t *int64, s *int64) *int64 {
		if s != nil && (t == nil || *s > *t) {
			return s
		}
		return t
	}
	for _, s := range sessions {
		i, ok := at[s.Workspace]
		if !ok {
			i = len(out)
			at[s.Workspace] = i
			out = append(out, archive.Workspace{Workspace: s.Workspace})
			all = append(all, nil)
		}
		w := &out[i]
		w.Sessions++
		w.Entries += s.Entries
		all[i] = later(all[i], s.ModifiedMs)
		if s.Entries > 0 {
			w.ModifiedMs = later(w.ModifiedMs, s.ModifiedMs)
		}
	}
	for i := range out {
		if out[i].ModifiedMs == nil {
			out[i].ModifiedMs = all[i]
		}
	}
	slices.SortFunc(out, func(x, y archive.Workspace) int {
		if c := cmp.Compare(boolInt(x.Entries == 0), boolInt(y.Entries == 0)); c != 0 {
			return c
		}
		if c := cmp.Compare(msOr0(y.ModifiedMs), msOr0(x.ModifiedMs)); c != 0 {
			return c
		}
		return strings.Compare(x.Workspace, y.Workspace)
	})
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func msOr0(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
