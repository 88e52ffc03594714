package archive

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// Filter picks sessions for sessions, leaves and branches (SPEC §8). Each
// empty field means all.
type Filter struct {
	Session string // one session: any name Resolve takes
	// Workspace is a clean absolute directory (WorkspaceDir): sessions
	// whose workspace is it or below it (index.UnderWorkspace, SPEC §3.3).
	Workspace string
	Dialect   string // sessions of this dialect (pi, plain, ...)
}

// Pick returns the sessions f picks, most recently modified first.
// Errors: unknown_session and ambiguous_session for f.Session.
func (a *Archive) Pick(ctx context.Context, f Filter) ([]index.Session, error) {
	return a.pick(ctx, f)
}

func (a *Archive) pick(ctx context.Context, f Filter) ([]index.Session, error) {
	if f.Session != "" {
		s, err := a.Resolve(ctx, f.Session)
		if err != nil {
			return nil, err
		}
		if !index.UnderWorkspace(s.Workspace, f.Workspace) || (f.Dialect != "" && s.Dialect != f.Dialect) {
			return nil, nil
		}
		return []index.Session{*s}, nil
	}
	return a.db.Sessions(ctx, index.SessionFilter{Workspace: f.Workspace, Dialect: f.Dialect})
}

// Sessions lists the indexed sessions whose workspace is the clean
// absolute directory workspace or below it (every one when workspace is
// ""), most recently modified first.
func (a *Archive) Sessions(ctx context.Context, workspace string) ([]index.Session, error) {
	return a.db.Sessions(ctx, index.SessionFilter{Workspace: workspace})
}

// WorkspaceDir turns a --workspace argument into the directory the
// workspace rule takes (SPEC §3.3): "" stays "" (no filter); anything else
// is made absolute against the current directory and cleaned (".", "src",
// "../x", a trailing slash, "//", "/./"), and, when it exists here,
// resolved through symlinks, as pi records the cwd. A directory that does
// not exist here is kept as it is (workspaces may be another machine's).
// A relative arg when the current directory cannot be resolved (it was
// deleted) is an io_error naming arg, never a filter on "." itself.
func WorkspaceDir(arg string) (string, error) {
	if arg == "" {
		return "", nil
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", errs.New(errs.CodeIO, "workspace "+strconv.Quote(arg)+" is relative, and the current directory cannot be resolved (was it deleted?): "+errMsg(err)).In(arg).WithHint("cd to a directory that exists, or give --workspace an absolute path")
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// Holdings is how many sessions and workspaces the index holds, to say
// what a filter that matched nothing left out.
func (a *Archive) Holdings(ctx context.Context) (sessions, workspaces int, err error) {
	ws, err := a.db.Workspaces(ctx, "")
	for _, w := range ws {
		sessions += w.Sessions
	}
	return sessions, len(ws), err
}

// CountSessions is how many sessions the index holds.
func (a *Archive) CountSessions(ctx context.Context) (int, error) { return a.db.CountSessions(ctx) }

// Diagnostics are the stored diagnostics of s (SPEC §2, §4: bad lines,
// torn tails, duplicate ids, lone surrogates, ...) in file order.
func (a *Archive) Diagnostics(ctx context.Context, s *index.Session) ([]index.Diagnostic, error) {
	return a.db.Diagnostics(ctx, s.SID)
}

// Workspaces lists the workspaces that are the clean absolute directory
// dir or below it (every one when dir is ""), most recently modified first.
func (a *Archive) Workspaces(ctx context.Context, dir string) ([]index.Workspace, error) {
	return a.db.Workspaces(ctx, dir)
}

// LeafInfo is one row of `grove leaves` (SPEC §8).
type LeafInfo struct {
	Session *index.Session
	Leaf    index.Leaf
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
// by the leaf's time, then in reverse file order; leaves without a readable
// time come last. Depth and the last user message on each
// path come from one recursive CTE; previews are read back from the files
// by offset (and left empty when the file changed since it was indexed).
func (a *Archive) Leaves(ctx context.Context, f Filter) ([]LeafInfo, error) {
	sessions, err := a.pick(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []LeafInfo
	for i := range sessions {
		s := &sessions[i]
		leaves, err := a.db.Leaves(ctx, s.SID)
		if err != nil {
			return nil, err
		}
		labels, err := a.db.Labels(ctx, s.SID)
		if err != nil {
			return nil, err
		}
		var file *os.File
		stale := Fresh(s) != nil
		if !stale {
			file, _ = os.Open(s.Path)
		}
		activeSeq := -1 // claude: of leaves sharing the active leaf's id, the one on the highest line
		for _, l := range leaves {
			if s.ActiveLeaf != nil && l.EntryID == *s.ActiveLeaf && l.Seq > activeSeq {
				activeSeq = l.Seq
			}
		}
		for _, l := range leaves {
			li := LeafInfo{Session: s, Leaf: l, Label: labels[l.EntryID], Stale: stale,
				Active: isActive(s, l.Seq, activeSeq)}
			if file != nil {
				from := l.Entry
				if u := l.LastUserEntry(); u != nil {
					from = *u
				}
				if raw, err := ReadLine(file, s.Path, from); err == nil {
					li.Preview = PreviewIn(jsonl.Dialect(s.Dialect), raw, PreviewWidth)
				}
			}
			out = append(out, li)
		}
		if file != nil {
			file.Close()
		}
	}
	slices.SortStableFunc(out, func(x, y LeafInfo) int {
		if c := cmp.Compare(activity(y), activity(x)); c != 0 {
			return c
		}
		if x.Session == y.Session {
			return cmp.Compare(y.Leaf.Seq, x.Leaf.Seq)
		}
		return 0
	})
	return out, nil
}

// activity is when a leaf was last worked on, in Unix milliseconds: its own
// time, or math.MinInt64 when it has none (a missing time says nothing
// about when, so such leaves are not put first).
func activity(l LeafInfo) int64 {
	if l.Leaf.TsMs != nil {
		return *l.Leaf.TsMs
	}
	return math.MinInt64
}

// count is n with the noun in its number: "1 entry", "2 entries".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// isActive reports whether the leaf at seq is the session's active leaf:
// the last entry (SPEC §1), or for claude claudeSeq, the highest leaf with
// the id the index chose by SPEC §3.4's rule (decided by line, so of two
// leaves sharing a duplicated uuid only the later is active).
func isActive(s *index.Session, seq, claudeSeq int) bool {
	if s.Dialect == string(jsonl.Claude) {
		return seq == claudeSeq
	}
	return s.Entries > 0 && seq == s.Entries-1
}
