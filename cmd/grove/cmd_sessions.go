package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

func sessionsCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list indexed sessions, most recently modified first, those without entries last (sub-agents and forks right under their parent), then the diagnostics of each session that has any",
		Flags: []cli.Flag{workspaceFlag(),
			dialectFlag(),
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

type sessionJSON struct {
	ID        string `json:"id"`
	Source    string `json:"source"` // the machine whose file it is (--source, SPEC §10)
	Path      string `json:"path"`
	Dialect   string `json:"dialect"`
	Workspace string `json:"workspace"`
	Name      string `json:"name"`
	// FirstMessage is null for a session indexed before schema 5 and not
	// read since (the next `grove index` reads it).
	FirstMessage *string `json:"first_message"`
	// ParentSession is the pi header's parentSession (branchedFrom in
	// older files): the session file a fork was made from; "" for none
	// (SPEC §8).
	ParentSession string           `json:"parent_session"`
	Entries       int              `json:"entries"`
	Leaves        int              `json:"leaves"`
	Created       any              `json:"created"`
	Modified      any              `json:"modified"`
	State         string           `json:"state"`
	Diagnostics   []diagnosticJSON `json:"diagnostics"`
}

// diagnosticJSON is a stored bad line or warning; a duplicate_id names its
// id and every line that has it, a lone_surrogate the field path.
type diagnosticJSON struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Line     int    `json:"line"`
	Offset   int64  `json:"offset"`
	Message  string `json:"message"`
	ID       string `json:"id,omitempty"`
	Lines    []int  `json:"lines,omitempty"`
	Path     string `json:"path,omitempty"`
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
	sessions, err := a.Pick(ctx, f)
	if err != nil {
		return err
	}
	if first != "" {
		sessions = firstContains(sessions, first)
	}
	sessions, depth := underParents(sessions)
	out := []sessionJSON{}
	for _, s := range sessions {
		j := sessionJSON{ID: s.SessionID, Source: s.Source, Path: s.Path, Dialect: string(s.Dialect), Workspace: s.Workspace, Name: s.Name, FirstMessage: s.FirstMessage, ParentSession: s.ParentSession,
			Entries: s.Entries, Leaves: s.Leaves, Created: rfc3339(s.CreatedMs), Modified: rfc3339(s.ModifiedMs),
			State: sessionState(&s), Diagnostics: []diagnosticJSON{}}
		if s.Diagnostics > 0 {
			ds, err := a.Diagnostics(ctx, &s)
			if err != nil {
				return err
			}
			for _, d := range ds {
				j.Diagnostics = append(j.Diagnostics, diagnosticJSON{Severity: d.Severity, Code: d.Code, Line: d.Line,
					Offset: d.Offset, Message: d.Message, ID: d.ID, Lines: d.Lines, Path: d.Field})
			}
		}
		out = append(out, j)
	}
	if g.json {
		return writeJSON(g.stdout, map[string]any{"sessions": out})
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
		state := sessionState(&s)
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
	if kept && cost.Gone > 0 {
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
func writeDiagnostics(g *env, sessions []sessionJSON, many bool) error {
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

// firstContains keeps the sessions whose first message contains sub,
// ignoring case, both normalised alike (archive.NormalizeText).
func firstContains(sessions []archive.Session, sub string) []archive.Session {
	sub = strings.ToLower(archive.NormalizeText(sub))
	var out []archive.Session
	for _, s := range sessions {
		if s.FirstMessage != nil && strings.Contains(strings.ToLower(*s.FirstMessage), sub) {
			out = append(out, s)
		}
	}
	return out
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

// sessionState is the state sessions shows of s: the index's (ok,
// needs-repair, damaged), or "unsupported" for a file grove lists but does
// not read (a *.jsonl.zst, SPEC §3.5), whose one diagnostic says why.
func sessionState(s *archive.Session) string {
	if archive.IsCompressed(s.Path) {
		return "unsupported"
	}
	return string(s.State)
}

// underParents orders sessions (most recently modified first) so that a
// session whose parent_session names another of them, by session id or by
// path (a Claude sub-agent's sessionId, SPEC §3.4; a pi fork's
// parentSession file), comes right under it, after the parent's other
// children of later modification; depth[i] is how far below a listed
// parent sessions[i] is, 0 for a session listed on its own. A parent left
// out by a filter leaves its children on their own; sessions whose parents
// loop come last, the loop broken where the walk meets a session again.
func underParents(sessions []archive.Session) ([]archive.Session, []int) {
	// A parent is looked for among the sessions of the child's own source
	// (a team's index, SPEC §10, may hold one copy per machine).
	byKey := map[[2]string]int{}
	for i := len(sessions) - 1; i >= 0; i-- { // the first of equal ids wins
		byKey[[2]string{sessions[i].Source, sessions[i].SessionID}] = i
		byKey[[2]string{sessions[i].Source, sessions[i].Path}] = i
	}
	parent := make([]int, len(sessions))
	children := make([][]int, len(sessions))
	for i, s := range sessions {
		parent[i] = -1
		if s.ParentSession == "" {
			continue
		}
		if p, ok := byKey[[2]string{s.Source, s.ParentSession}]; ok && p != i {
			parent[i] = p
			children[p] = append(children[p], i)
		}
	}
	out := make([]archive.Session, 0, len(sessions))
	depth := make([]int, 0, len(sessions))
	done := make([]bool, len(sessions))
	var walk func(i, d int)
	walk = func(i, d int) {
		if done[i] {
			return
		}
		done[i] = true
		out = append(out, sessions[i])
		depth = append(depth, d)
		for _, c := range children[i] {
			walk(c, d+1)
		}
	}
	for i := range sessions {
		if parent[i] < 0 {
			walk(i, 0)
		}
	}
	for i := range sessions { // parents that loop: each listed once, on its own
		walk(i, 0)
	}
	return out, depth
}

// childKind names what a session listed under its parent is, as its agent
// says (Agent.ChildKind): a Claude Code sub-agent (an agent-*.jsonl file,
// SPEC §3.4), a pi fork (pi's parentSession), else "child" (a Codex
// sub-agent or fork, another Claude file whose lines name another
// session).
func childKind(s *archive.Session) string {
	return archive.AgentFor(s.Dialect).ChildKind(s.Path)
}
