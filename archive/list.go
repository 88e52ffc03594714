package archive

import (
	"context"
	"os"

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
	Active  bool   // the session's active leaf (last entry in file order)
	Preview string // one line from the leaf's entry; "" when the file cannot be read back
	Label   string // pi label of the leaf, if any
	Stale   bool   // the session's file changed since it was indexed (no preview)
}

// Leaves lists the leaves of the sessions f picks, sessions most recently
// modified first and leaves in file order. Depth comes from the index;
// previews are read back from the files by offset (and left empty when the
// file changed since it was indexed).
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
				if raw, err := ReadLine(file, s.Path, l.Entry); err == nil {
					li.Preview = Preview(raw, PreviewWidth)
				}
			}
			out = append(out, li)
		}
		if file != nil {
			file.Close()
		}
	}
	return out, nil
}

// BranchInfo is one row of `grove branches` (SPEC §8).
type BranchInfo struct {
	Session *index.Session
	index.Branch
}

// Branches lists the branch points of the sessions f picks, with their
// children in file order and the number of leaves below each.
func (a *Archive) Branches(ctx context.Context, f Filter) ([]BranchInfo, error) {
	sessions, err := a.pick(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []BranchInfo
	for i := range sessions {
		bs, err := a.db.Branches(ctx, sessions[i].SID)
		if err != nil {
			return nil, err
		}
		for _, b := range bs {
			out = append(out, BranchInfo{Session: &sessions[i], Branch: b})
		}
	}
	return out, nil
}
