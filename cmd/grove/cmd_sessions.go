package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/plural"
)

func sessionsCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list indexed sessions, most recently modified first, those without entries last (sub-agents and forks right under their parent), then the diagnostics of each session that has any",
		Flags: []cli.Flag{workspaceFlag(),
			dialectFlag(),
			&cli.BoolFlag{Name: "all", Usage: "count every leaf in LEAVES, also what the agent recorded beside the branches a person made (SPEC §4.2)"},
			&cli.StringFlag{Name: "first", Usage: "only sessions whose first user message (its first 200 characters) contains this text, ignoring case"},
		},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			if err := checkDialect(c, "sessions"); err != nil {
				return err
			}
			if c.IsSet("first") && archive.NormalizeText(c.String("first")) == "" {
				return usagef("sessions --first: want some text to look for, got %q", c.String("first"))
			}
			f, err := filterOf(c)
			if err != nil {
				return err
			}
			return runSessions(c.Context, g, f, c.String("first"))
		},
	}
}

// firstColumns is how wide the first message may be in the sessions
// table, in terminal columns.
const firstColumns = 40

func runSessions(ctx context.Context, g *env, f archive.Filter, first string) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := workspaceFilter(ctx, a, &f.Workspace); err != nil {
		return err
	}
	doc, err := jsondoc.ListSessions(ctx, a, f, first)
	if err != nil {
		return err
	}
	sessions, depth, out := doc.Listed, doc.Depth, doc.Sessions
	if g.json {
		return writeJSON(g.stdout, doc)
	}
	cost, kept, err := a.KeptCost(ctx)
	if err != nil {
		return err
	}
	if len(out) == 0 {
		filters := describe(f)
		if first != "" {
			filters = strings.TrimPrefix(filters+" and whose first message contains "+strconv.Quote(cell(first)), " and ")
		}
		return nothingMatched(ctx, g, a, "sessions", filters)
	}
	// A listing of one machine's sessions has no SOURCE column; a team's
	// index (SPEC §10) shows whose file each one is.
	sources := map[string]bool{}
	for _, s := range sessions {
		sources[s.Source] = true
	}
	many := len(sources) > 1
	tw := table(g.stdout)
	head := "SESSION\tDIALECT\tMODIFIED (UTC)\tENTRIES\tLEAVES\tSTATE\tWORKSPACE\tNAME\tFIRST MESSAGE\tFILE"
	if many {
		head = "SESSION\tSOURCE\tDIALECT\tMODIFIED (UTC)\tENTRIES\tLEAVES\tSTATE\tWORKSPACE\tNAME\tFIRST MESSAGE\tFILE"
	}
	fmt.Fprintln(tw, head)
	for i, s := range sessions {
		state := jsondoc.SessionState(&s)
		if s.Diagnostics > 0 {
			state = fmt.Sprintf("%s (%s)", state, plural.Count(s.Diagnostics, "diagnostic", "diagnostics"))
		}
		id := idCell(s.SessionID)
		if depth[i] > 0 {
			id = strings.Repeat("  ", depth[i]-1) + "└ " + childKind(&s) + " " + id
		}
		if many {
			id += "\t" + cell(orDash(s.Source))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", id, cell(string(s.Dialect)), short(s.ModifiedMs), s.Entries, s.Leaves, state, cell(orDash(s.Workspace)), cell(orDash(s.Name)), firstCell(s.FirstMessage), cell(s.Path))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if kept && (cost.Gone > 0 || cost.Earlier > 0) {
		// Only then: with nothing gone the answer is what it was, and the
		// same from SQLite and PostgreSQL (SPEC §11).
		fmt.Fprintln(g.stdout, keptLine(cost))
	}
	return writeDiagnostics(g, out, many)
}

// maxShownDiagnostics is how many diagnostics of one session the table's
// text output lists; --json and `grove recover FILE` give all of them.
const maxShownDiagnostics = 10

// writeDiagnostics lists, after the table, the diagnostics of every session
// that has any: each duplicated id with all its lines, each bad line, each
// warning (SPEC §6), at most maxShownDiagnostics per session.
// many says the sessions are of several sources: each is named with its.
func writeDiagnostics(g *env, sessions []jsondoc.Session, many bool) error {
	for _, s := range sessions {
		if len(s.Diagnostics) == 0 {
			continue
		}
		where := s.Path
		if many {
			where = s.Source + ": " + s.Path
		}
		fmt.Fprintf(g.stdout, "\n%s (%s):\n", cell(s.ID), cell(where))
		for i, d := range s.Diagnostics {
			if i == maxShownDiagnostics {
				fmt.Fprintf(g.stdout, "  ... %d more: grove recover %s\n", len(s.Diagnostics)-i, shellQuote(s.Path))
				break
			}
			fmt.Fprintf(g.stdout, "  %-7s line %d (byte %d): %s [%s]\n", d.Severity, d.Line, d.Offset, cell(d.Message), d.Code)
		}
	}
	return nil
}

// firstCell is a first message clipped to firstColumns: "-" when the
// session has none, "?" when it was indexed before schema 5 and not read
// since.
func firstCell(m *string) string {
	if m == nil {
		return "?"
	}
	return clipWidth(cell(orDash(*m)), firstColumns)
}

// childKind names what a session listed under its parent is, as its agent
// says (Agent.ChildKind): a Claude Code sub-agent (an agent-*.jsonl file,
// SPEC §3.4), a pi fork (pi's parentSession), else "child" (a Codex
// sub-agent or fork, another Claude file whose lines name another
// session).
func childKind(s *archive.Session) string {
	return archive.AgentFor(s.Dialect).ChildKind(s.Path)
}
