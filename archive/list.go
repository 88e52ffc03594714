package archive

import (
	"cmp"
	"context"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// Filter picks sessions for sessions, leaves and branches (SPEC §8). Each
// empty field means all.
type Filter struct {
	Session string // one session: any name Resolve takes
	// Workspace is a clean absolute directory or a workspace as another
	// system wrote it (WorkspaceFilter): sessions whose workspace is it or
	// below it (index.UnderWorkspace, SPEC §3.3).
	Workspace string
	Dialect   string // sessions of this dialect (pi, plain, ...)
	// All lists every leaf and branch point, each with its kind; without
	// it Leaves and BranchPoints list the real ones only (SPEC §4.2).
	All bool
}

// Pick returns the sessions f picks, most recently modified first, those
// without entries last (index.SessionOrder).
// Errors: unknown_session and ambiguous_session for f.Session.
func (a *Archive) Pick(ctx context.Context, f Filter) ([]Session, error) {
	rows, err := a.pick(ctx, f)
	return a.sessionsOf(rows), err
}

func (a *Archive) pick(ctx context.Context, f Filter) ([]index.Session, error) {
	if f.Session != "" {
		s, err := a.resolve(ctx, f.Session)
		if err != nil {
			return nil, err
		}
		if !index.UnderWorkspace(s.Workspace, f.Workspace) || (f.Dialect != "" && s.Dialect != f.Dialect) {
			return nil, nil
		}
		return []index.Session{*s}, nil
	}
	return a.db().Sessions(ctx, index.SessionFilter{Workspace: f.Workspace, Dialect: f.Dialect, Source: a.readSource()})
}

// readSource is the source a reading command keeps to (ReadAs), in a
// team's index; "" for all.
func (a *Archive) readSource() string {
	if !a.db().IsServer() {
		return ""
	}
	return a.readAs
}

// Sessions lists the indexed sessions whose workspace is the clean
// absolute directory workspace or below it (every one when workspace is
// ""), most recently modified first, those without entries last
// (index.SessionOrder).
func (a *Archive) Sessions(ctx context.Context, workspace string) ([]Session, error) {
	rows, err := a.db().Sessions(ctx, index.SessionFilter{Workspace: workspace})
	return a.sessionsOf(rows), err
}

// Diagnostics are the stored diagnostics of s (SPEC §2, §4, §6: bad
// lines, torn tails, duplicate ids, lone surrogates, ...) in file order;
// none for a Session that did not come from the index.
func (a *Archive) Diagnostics(ctx context.Context, s *Session) ([]Diagnostic, error) {
	if s.row == nil {
		return nil, nil
	}
	rows, err := a.db().Diagnostics(ctx, s.row.SID)
	out := make([]Diagnostic, len(rows))
	for i, d := range rows {
		out[i] = Diagnostic(d)
	}
	return out, err
}

// CountSessions is how many sessions the index holds.
func (a *Archive) CountSessions(ctx context.Context) (int, error) { return a.db().CountSessions(ctx) }

// WorkspaceDir turns a --workspace argument into the directory the
// workspace rule takes (SPEC §3.3): "" stays "" (no filter); a Windows path
// (index.IsWindowsPath: e:\Workspace\app, C:/Users/ana) stays as it is
// written, for it was recorded on another system (it matches with "\" and
// "/" alike and the drive letter in either case); anything else is made
// absolute against the current directory and cleaned (".", "src", "../x",
// a trailing slash, "//", "/./"), and, when it exists here, resolved
// through symlinks, as pi records the cwd. A directory that does not exist
// here is kept as it is (workspaces may be another machine's). A relative
// arg when the current directory cannot be resolved (it was deleted) is an
// io_error naming arg, never a filter on "." itself.
func WorkspaceDir(arg string) (string, error) {
	if arg == "" || index.IsWindowsPath(arg) {
		return arg, nil
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", errs.New(errs.CodeIO, "workspace "+strconv.Quote(arg)+" is relative, and the current directory cannot be resolved (was it deleted?): "+errs.PathReason(err)).In(arg).WithHint("cd to a directory that exists, or give --workspace an absolute path")
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// IsWindowsPath reports whether p is written as a Windows path (a drive
// letter and a colon, or \\server\share): a workspace recorded on another
// system, matched as written (index.IsWindowsPath, SPEC §3.3).
func IsWindowsPath(p string) bool { return index.IsWindowsPath(p) }

// WorkspaceFilter is WorkspaceDir(arg), except that a relative arg that
// names a workspace the index holds as it is written (or one below it) is
// taken as written, not resolved against the current directory: a
// workspace recorded on another system, such as Claude Code's escaped
// folder name (-home-ana-app) where no cwd is known (SPEC §3.3).
func (a *Archive) WorkspaceFilter(ctx context.Context, arg string) (string, error) {
	if arg != "" && !filepath.IsAbs(arg) && !index.IsWindowsPath(arg) {
		held, err := a.db().HoldsWorkspace(ctx, arg)
		if err != nil {
			return "", err
		}
		if held {
			return arg, nil
		}
	}
	return WorkspaceDir(arg)
}

// Holdings is how many sessions and workspaces the index holds, to say
// what a filter that matched nothing left out.
func (a *Archive) Holdings(ctx context.Context) (sessions, workspaces int, err error) {
	ws, err := a.db().Workspaces(ctx, "")
	for _, w := range ws {
		sessions += w.Sessions
	}
	return sessions, len(ws), err
}

// Workspaces lists the workspaces that are the clean absolute directory
// dir or below it (every one when dir is ""), most recently modified
// first, those without entries last (index.DB.Workspaces).
func (a *Archive) Workspaces(ctx context.Context, dir string) ([]Workspace, error) {
	rows, err := a.db().Workspaces(ctx, dir)
	out := make([]Workspace, len(rows))
	for i, w := range rows {
		out[i] = Workspace(w)
	}
	return out, err
}

// Leaf is one row of `grove leaves` (SPEC §1, §8): a leaf entry of a
// session with its depth.
type Leaf struct {
	Session *Session
	Entry
	Depth *int // entries on the leaf's path, the leaf included; nil when the path is broken (missing parent, cycle, duplicate ids)
	// Active is set on the session's active leaf: the entry on the last
	// line in file order (SPEC §1), decided by its line, not its id, so of
	// two leaves that share a duplicated id only the later one is active;
	// for claude the last leaf that is no sidechain (SPEC §3.4).
	Active bool
	// Preview is one line from the last user message on the leaf's path,
	// or from the leaf itself when its path has none; "" when the file
	// cannot be read back.
	Preview string
	Label   string // pi label of the leaf, if any
	Stale   bool   // the session's file changed since it was indexed (no preview)
}

// Leaves lists the leaves of the sessions f picks, newest activity first:
// by the leaf's time (leaves without a readable time last); leaves of one
// time by their session's file path, then source, then in reverse file
// order (the later line first), so that SQLite and PostgreSQL give one
// order (SPEC §10). Depth and the last user message on each
// path come from one recursive CTE; previews are read back from the files
// by offset (and left empty when the file changed since it was indexed).
func (a *Archive) Leaves(ctx context.Context, f Filter) ([]Leaf, error) {
	out, _, err := a.NewestLeaves(ctx, f, 0)
	return out, err
}

// NewestLeaves is Leaves cut to its first limit leaves (0: all), in the
// same order, with total the number of all of them: only the leaves kept
// have their previews read back, so a workspace of 5,000 sessions costs
// limit line reads, not one per leaf (grove serve's workspace page).
func (a *Archive) NewestLeaves(ctx context.Context, f Filter, limit int) (out []Leaf, total int, err error) {
	sessions, err := a.pick(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	// pending is a leaf before its preview: read from the entry from of
	// the session l.
	type pending struct {
		leaf Leaf
		from Entry
		l    *loaded
	}
	var all []pending
	for i := range sessions {
		s := &sessions[i]
		leaves, err := a.db().Leaves(ctx, s.SID)
		if err != nil {
			return nil, 0, err
		}
		l, err := a.load(ctx, s, false)
		if err != nil {
			return nil, 0, err
		}
		activeSeq := -1 // LastMainLeaf: of leaves sharing the active leaf's id, the one on the highest line
		for _, x := range leaves {
			if s.ActiveLeaf != nil && x.EntryID == *s.ActiveLeaf && x.Seq > activeSeq {
				activeSeq = x.Seq
			}
		}
		for _, x := range leaves {
			if x.PathKind != nil && !f.All {
				continue // an artifact, not a branch a person made (SPEC §4.2)
			}
			from := x.Entry
			if u := x.LastUserEntry(); u != nil {
				from = *u
			}
			all = append(all, pending{leaf: Leaf{Session: l.s, Entry: entryOf(x.Entry), Depth: x.Depth, Label: l.labels[x.EntryID],
				Stale: l.stale != nil, Active: isActive(s, x.Seq, activeSeq)}, from: entryOf(from), l: l})
		}
	}
	slices.SortFunc(all, func(x, y pending) int {
		if c := cmp.Compare(activity(y.leaf), activity(x.leaf)); c != 0 {
			return c
		}
		if c := strings.Compare(x.leaf.Session.Path, y.leaf.Session.Path); c != 0 {
			return c
		}
		if c := strings.Compare(x.leaf.Session.Source, y.leaf.Session.Source); c != 0 {
			return c
		}
		return cmp.Compare(y.leaf.Seq, x.leaf.Seq)
	})
	total = len(all)
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	// Previews: each session's file opened once, and closed before the
	// next is opened (a listing of 5,000 sessions holds one at a time).
	out = make([]Leaf, len(all))
	bySession := map[*loaded][]int{}
	var order []*loaded
	for i, p := range all {
		if _, ok := bySession[p.l]; !ok {
			order = append(order, p.l)
		}
		bySession[p.l] = append(bySession[p.l], i)
	}
	for _, l := range order {
		f := l.open()
		for _, i := range bySession[l] {
			all[i].leaf.Preview = l.preview(f, all[i].from)
		}
		if f != nil {
			f.Close()
		}
	}
	for i := range all {
		out[i] = all[i].leaf
	}
	return out, total, nil
}

// kindName is a stored kind's name (SPEC §4.2): "branch" for NULL.
func kindName(k *string) string {
	if k == nil {
		return jsonl.KindBranch.String()
	}
	return *k
}

// activity is when a leaf was last worked on, in Unix milliseconds: its own
// time, or math.MinInt64 when it has none (a missing time says nothing
// about when, so such leaves are not put first).
func activity(l Leaf) int64 {
	if l.TsMs != nil {
		return *l.TsMs
	}
	return math.MinInt64
}

// isActive reports whether the leaf at seq is the session's active leaf:
// the last entry (SPEC §1), or, for an agent whose active leaf is the last
// leaf that is no sidechain (LastMainLeaf, SPEC §3.4), mainSeq, the highest
// leaf with the id the index chose by that rule (decided by line, so of
// two leaves sharing a duplicated uuid only the later is active).
func isActive(s *index.Session, seq, mainSeq int) bool {
	if agent.Of(jsonl.Dialect(s.Dialect)).Traits().ActiveLeaf == agent.LastMainLeaf {
		return seq == mainSeq
	}
	return s.Entries > 0 && seq == s.Entries-1
}
