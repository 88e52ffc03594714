package archive

import (
	"cmp"
	"context"
	"math"
	"os"
	"slices"

	"github.com/grove-sessions/grove/index"
)

// Filter picks sessions for leaves and branches: by one session (any name
// Resolve takes) or by an exact workspace. Both empty means every session.
type Filter struct {
	Session   string
	Workspace string
}

func (a *Archive) pick(ctx context.Context, f Filter) ([]index.Session, error) {
	if f.Session != "" {
		s, err := a.Resolve(ctx, f.Session)
		if err != nil {
			return nil, err
		}
		if f.Workspace != "" && s.Workspace != f.Workspace {
			return nil, nil
		}
		return []index.Session{*s}, nil
	}
	return a.db.Sessions(ctx, index.SessionFilter{Workspace: f.Workspace})
}

// Sessions lists the indexed sessions of one workspace, or all when
// workspace is "", most recently modified first.
func (a *Archive) Sessions(ctx context.Context, workspace string) ([]index.Session, error) {
	return a.db.Sessions(ctx, index.SessionFilter{Workspace: workspace})
}

// Workspaces lists the workspaces, most recently modified first.
func (a *Archive) Workspaces(ctx context.Context) ([]index.Workspace, error) {
	return a.db.Workspaces(ctx)
}

// LeafInfo is one row of `grove leaves` (SPEC §8).
type LeafInfo struct {
	Session *index.Session
	Leaf    index.Leaf
	Active  bool // the session's active leaf (last entry in file order)
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
		for _, l := range leaves {
			li := LeafInfo{Session: s, Leaf: l, Label: labels[l.EntryID], Stale: stale,
				Active: s.ActiveLeaf != nil && *s.ActiveLeaf == l.EntryID}
			if file != nil {
				from := l.Entry
				if u := l.LastUserEntry(); u != nil {
					from = *u
				}
				if raw, err := ReadLine(file, s.Path, from); err == nil {
					li.Preview = Preview(raw, PreviewWidth)
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
