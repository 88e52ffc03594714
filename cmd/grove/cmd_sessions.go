package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
)

func sessionsCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list indexed sessions, most recently modified first",
		Flags: []cli.Flag{workspaceFlag(),
			&cli.StringFlag{Name: "dialect", Usage: "only sessions of this dialect (pi, plain)"}},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			return runSessions(c.Context, g, filterOf(c))
		},
	}
}

type sessionJSON struct {
	ID          string           `json:"id"`
	Path        string           `json:"path"`
	Dialect     string           `json:"dialect"`
	Workspace   string           `json:"workspace"`
	Name        string           `json:"name"`
	Entries     int              `json:"entries"`
	Leaves      int              `json:"leaves"`
	Created     any              `json:"created"`
	Modified    any              `json:"modified"`
	State       string           `json:"state"`
	Diagnostics []diagnosticJSON `json:"diagnostics"`
}

type diagnosticJSON struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Line     int    `json:"line"`
	Offset   int64  `json:"offset"`
	Message  string `json:"message"`
}

func runSessions(ctx context.Context, g *env, f archive.Filter) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	sessions, err := a.Pick(ctx, f)
	if err != nil {
		return err
	}
	out := []sessionJSON{}
	for _, s := range sessions {
		j := sessionJSON{ID: s.SessionID, Path: s.Path, Dialect: s.Dialect, Workspace: s.Workspace, Name: s.Name,
			Entries: s.Entries, Leaves: s.Leaves, Created: rfc3339(s.CreatedMs), Modified: rfc3339(s.ModifiedMs),
			State: s.State, Diagnostics: []diagnosticJSON{}}
		if s.Diagnostics > 0 {
			ds, err := a.DB().Diagnostics(ctx, s.SID)
			if err != nil {
				return err
			}
			for _, d := range ds {
				j.Diagnostics = append(j.Diagnostics, diagnosticJSON(d))
			}
		}
		out = append(out, j)
	}
	if g.json {
		return writeJSON(g.stdout, map[string]any{"sessions": out})
	}
	if len(out) == 0 {
		return nothingMatched(ctx, g, a, "sessions", describe(f))
	}
	tw := table(g.stdout)
	fmt.Fprintln(tw, "SESSION\tMODIFIED (UTC)\tENTRIES\tLEAVES\tSTATE\tWORKSPACE\tNAME\tFILE")
	for _, s := range sessions {
		state := s.State
		if s.Diagnostics > 0 {
			state = fmt.Sprintf("%s (%s)", s.State, counted(s.Diagnostics, "diagnostic", "diagnostics"))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", idCell(s.SessionID), short(s.ModifiedMs), s.Entries, s.Leaves, state, cell(orDash(s.Workspace)), cell(orDash(s.Name)), cell(s.Path))
	}
	return tw.Flush()
}
