package archive

import (
	"context"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/agent"
)

// SubagentRun is one sub-agent run of a session and the tool call that
// started it (internal/agent's Spawner; for Claude Code, FORMATS.md §1.6
// and docs/agents.md): a run inline in the session's own file (a sidechain
// root), or a sub-agent session of its own.
type SubagentRun struct {
	// Call is the id of the entry holding the call (Claude Code: the
	// assistant entry with the Task or Agent tool_use), ToolUseID the
	// call's own id; both "" for a run no call started.
	Call, ToolUseID string
	// Root is an inline run's first entry (a sidechain root of the same
	// file), Leaves its leaves in file order; "" and nil for a run in a
	// session of its own.
	Root   string
	Leaves []string
	// SessionID is a run's own session (Claude Code: agent-<agentId>), ""
	// for an inline run; Session is that session as the index holds it,
	// nil when it holds none of that id.
	SessionID string
	Session   *Session
}

// Runs are the sub-agent runs of one session, and for a sub-agent session
// the call that started it.
type Runs struct {
	Session *Session
	// Runs are in the order of their calls, then the runs no call started.
	Runs []SubagentRun
	// SpawnedBy is the run of the parent session (ParentSession) whose
	// call started this session, with Session set to that parent; nil
	// when this session is none's or no call of its parent names it.
	SpawnedBy *SubagentRun
}

// Runs answers which sub-agent runs the session started and which call of
// its parent session started it (the links of `grove tree`, `grove leaves`
// and `grove serve`): the session's entries come from the index and the
// lines its agent's rules read (Spawner.RunLine) are read back by offset.
// An agent whose sessions start no runs has none. Errors: those of
// resolving the session, and stale_index for a line that cannot be read
// back or changed since it was indexed.
func (a *Archive) Runs(ctx context.Context, session string) (*Runs, error) {
	s, err := a.resolve(ctx, session)
	if err != nil {
		return nil, err
	}
	return a.runsOfSession(ctx, s)
}

// runsOfSession is Runs of the resolved session s.
func (a *Archive) runsOfSession(ctx context.Context, s *index.Session) (*Runs, error) {
	var err error
	out := &Runs{Session: a.sessionOf(s)}
	if _, ok := agent.Of(Dialect(s.Dialect)).(agent.Spawner); !ok {
		return out, nil
	}
	if out.Runs, err = a.runsOf(ctx, s); err != nil {
		return nil, err
	}
	if s.ParentSession == "" {
		return out, nil
	}
	p, err := a.resolve(ctx, s.ParentSession)
	if err != nil || p.Dialect != s.Dialect {
		return out, nil // a parent the index does not hold: no link back
	}
	runs, err := a.runsOf(ctx, p)
	if err != nil {
		return nil, err
	}
	for i := range runs {
		if runs[i].SessionID == s.SessionID {
			r := runs[i]
			r.Session = a.sessionOf(p)
			out.SpawnedBy = &r
			break
		}
	}
	return out, nil
}

// runsOf is the Spawner's Runs over the indexed session s, with each
// inline run's leaves and each run's own session looked up in the index.
func (a *Archive) runsOf(ctx context.Context, s *index.Session) ([]SubagentRun, error) {
	sp, ok := agent.Of(Dialect(s.Dialect)).(agent.Spawner)
	if !ok {
		return nil, nil
	}
	rows, err := a.db().EntriesOf(ctx, s.SID)
	if err != nil {
		return nil, err
	}
	// Only a session with a sidechain root beside entries that are none
	// (inline runs) or one that another session names as its parent (runs
	// of their own) has runs: the others' lines are not read.
	sideRoot, main := false, false
	for _, e := range rows {
		sideRoot = sideRoot || e.Side && e.ParentID == nil
		main = main || !e.Side
	}
	if !sideRoot || !main {
		kids, err := a.db().HasChildSessions(ctx, s.SessionID)
		if err != nil || !kids {
			return nil, err
		}
	}
	sess := a.sessionOf(s)
	f, err := sess.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries := make([]FileEntry, len(rows))
	parent := make(map[string]string, len(rows))
	hasChild := make(map[string]bool, len(rows))
	for i, e := range rows {
		entries[i] = jsonlEntry(entryOf(e))
		entries[i].Sidechain = e.Side
		if e.ParentID != nil {
			parent[e.EntryID] = *e.ParentID
			hasChild[*e.ParentID] = true
		}
		if sp.RunLine(e.Type) {
			if entries[i].Raw, err = readRow(f, sess.Path, e); err != nil {
				return nil, err
			}
		}
	}
	byRoot := map[string]int{}
	var out []SubagentRun
	for _, r := range sp.Runs(entries) {
		if r.Root != "" {
			byRoot[r.Root] = len(out)
		}
		run := SubagentRun{Call: r.Call, ToolUseID: r.ToolUseID, Root: r.Root, SessionID: r.Session}
		if r.Session != "" {
			if t, err := a.resolve(ctx, r.Session); err == nil && t.SessionID == r.Session {
				run.Session = a.sessionOf(t)
			}
		}
		out = append(out, run)
	}
	for _, e := range rows { // each inline run's leaves: the root each leaf's parents reach
		if hasChild[e.EntryID] || !e.Side {
			continue
		}
		id, seen := e.EntryID, map[string]bool{}
		for parent[id] != "" && !seen[id] {
			seen[id] = true
			id = parent[id]
		}
		if k, ok := byRoot[id]; ok {
			out[k].Leaves = append(out[k].Leaves, e.EntryID)
		}
	}
	return out, nil
}

// RunsOf are the sub-agent runs of every session f picks whose agent's
// sessions start runs and that holds inline runs (a sidechain leaf beside
// a leaf that is none), each session with its runs, in the order of the
// sessions: what `grove leaves` says of the sidechain leaves it leaves
// out. Errors: those of Runs.
func (a *Archive) RunsOf(ctx context.Context, f Filter) ([]Runs, error) {
	sessions, err := a.pick(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []Runs
	for i := range sessions {
		s := &sessions[i]
		if _, ok := agent.Of(Dialect(s.Dialect)).(agent.Spawner); !ok {
			continue
		}
		if side, err := a.db().HasSidechain(ctx, s.SID); err != nil || !side {
			if err != nil {
				return nil, err
			}
			continue // no sidechain entry: no inline run (the leaves' walk is the cost)
		}
		leaves, err := a.db().Leaves(ctx, s.SID)
		if err != nil {
			return nil, err
		}
		if !mixedLeaves(leaves) {
			continue
		}
		runs, err := a.runsOf(ctx, s)
		if err != nil {
			return nil, err
		}
		var inline []SubagentRun
		for _, r := range runs {
			if r.Root != "" {
				inline = append(inline, r)
			}
		}
		out = append(out, Runs{Session: a.sessionOf(s), Runs: inline})
	}
	return out, nil
}

// mixedLeaves reports whether a session has a sidechain leaf beside a leaf
// that is none: a main conversation with inline sub-agent runs (SPEC §3.4:
// the same test decides the active leaf).
func mixedLeaves(leaves []index.Leaf) bool {
	side, main := false, false
	for _, l := range leaves {
		side = side || l.Side
		main = main || !l.Side
	}
	return side && main
}
