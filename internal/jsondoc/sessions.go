package jsondoc

import (
	"context"
	"strings"

	"github.com/grove-sessions/grove/archive"
)

// Session is one session of `grove sessions --json` (SPEC §8).
type Session struct {
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
	ParentSession string       `json:"parent_session"`
	Entries       int          `json:"entries"`
	Leaves        int          `json:"leaves"`
	Created       any          `json:"created"`
	Modified      any          `json:"modified"`
	State         string       `json:"state"`
	Diagnostics   []Diagnostic `json:"diagnostics"`
}

// Diagnostic is a stored bad line or warning (SPEC §6); a duplicate_id
// names its id and every line that has it, a lone_surrogate the field
// path.
type Diagnostic struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Line     int    `json:"line"`
	Offset   int64  `json:"offset"`
	Message  string `json:"message"`
	ID       string `json:"id,omitempty"`
	Lines    []int  `json:"lines,omitempty"`
	Path     string `json:"path,omitempty"`
}

// Sessions is `grove sessions --json`: {"sessions":[...]}, most recently
// modified first, each sub-agent or fork right under its parent.
type Sessions struct {
	Sessions []Session `json:"sessions"`
	// Listed are the sessions in the order of Sessions; Depth[i] is how
	// far below a listed parent Listed[i] is (0: on its own).
	Listed []archive.Session `json:"-"`
	Depth  []int             `json:"-"`
}

// ListSessions is `grove sessions`: the sessions f picks (its Workspace
// already a filter, see Archive.WorkspaceFilter) whose first user message
// contains first (ignoring case; "" for any), ordered by UnderParents,
// with their stored diagnostics. Errors are the index's.
func ListSessions(ctx context.Context, a *archive.Archive, f archive.Filter, first string) (*Sessions, error) {
	sessions, err := a.Pick(ctx, f)
	if err != nil {
		return nil, err
	}
	if first != "" {
		sessions = FirstContains(sessions, first)
	}
	sessions, depth := UnderParents(sessions)
	if f.All {
		for i := range sessions {
			sessions[i].Leaves = sessions[i].AllLeaves
		}
	}
	doc := &Sessions{Sessions: []Session{}, Listed: sessions, Depth: depth}
	for _, s := range sessions {
		j := Session{ID: s.SessionID, Source: s.Source, Path: s.Path, Dialect: string(s.Dialect), Workspace: s.Workspace, Name: s.Name, FirstMessage: s.FirstMessage, ParentSession: s.ParentSession,
			Entries: s.Entries, Leaves: s.Leaves, Created: Time(s.CreatedMs), Modified: Time(s.ModifiedMs),
			State: SessionState(&s), Diagnostics: []Diagnostic{}}
		if s.Diagnostics > 0 {
			ds, err := a.Diagnostics(ctx, &s)
			if err != nil {
				return nil, err
			}
			for _, d := range ds {
				j.Diagnostics = append(j.Diagnostics, Diagnostic{Severity: d.Severity, Code: d.Code, Line: d.Line,
					Offset: d.Offset, Message: d.Message, ID: d.ID, Lines: d.Lines, Path: d.Field})
			}
		}
		doc.Sessions = append(doc.Sessions, j)
	}
	return doc, nil
}

// FirstContains keeps the sessions whose first message contains sub,
// ignoring case, both normalised alike (archive.NormalizeText).
func FirstContains(sessions []archive.Session, sub string) []archive.Session {
	sub = strings.ToLower(archive.NormalizeText(sub))
	var out []archive.Session
	for _, s := range sessions {
		if s.FirstMessage != nil && strings.Contains(strings.ToLower(*s.FirstMessage), sub) {
			out = append(out, s)
		}
	}
	return out
}

// SessionState is the state sessions shows of s: the index's (ok,
// needs-repair, damaged), or "unsupported" for a file grove lists but does
// not read (a *.jsonl.zst, SPEC §3.5), whose one diagnostic says why.
func SessionState(s *archive.Session) string {
	if archive.IsCompressed(s.Path) {
		return "unsupported"
	}
	return string(s.State)
}

// UnderParents orders sessions (most recently modified first) so that a
// session whose parent_session names another of them, by session id or by
// path (a Claude sub-agent's sessionId, SPEC §3.4; a pi fork's
// parentSession file), comes right under it, after the parent's other
// children of later modification; depth[i] is how far below a listed
// parent sessions[i] is, 0 for a session listed on its own. A parent left
// out by a filter leaves its children on their own; sessions whose parents
// loop come last, the loop broken where the walk meets a session again.
func UnderParents(sessions []archive.Session) ([]archive.Session, []int) {
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
