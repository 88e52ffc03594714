package jsondoc

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/grove-sessions/grove/archive"
)

// Workspace is one workspace of `grove workspaces --json` (SPEC §8).
type Workspace struct {
	Workspace string `json:"workspace"`
	Sessions  int    `json:"sessions"`
	Entries   int    `json:"entries"`
	Modified  any    `json:"modified"`
}

// Workspaces is `grove workspaces --json`: {"workspaces":[...]}.
type Workspaces struct {
	Workspaces []Workspace         `json:"workspaces"`
	Listed     []archive.Workspace `json:"-"` // the workspaces of Workspaces, in order
}

// ListWorkspaces is `grove workspaces`: each workspace that is dir or
// below it (dir already a filter, see Archive.WorkspaceFilter; "" for
// all), counting only the sessions of dialect when dialect is not "".
// Errors are the index's.
func ListWorkspaces(ctx context.Context, a *archive.Archive, dir, dialect string) (*Workspaces, error) {
	var ws []archive.Workspace
	var err error
	if dialect == "" {
		ws, err = a.Workspaces(ctx, dir)
	} else {
		ws, err = dialectWorkspaces(ctx, a, dir, dialect)
	}
	if err != nil {
		return nil, err
	}
	doc := &Workspaces{Workspaces: []Workspace{}, Listed: ws}
	for _, w := range ws {
		doc.Workspaces = append(doc.Workspaces, Workspace{w.Workspace, w.Sessions, w.Entries, Time(w.ModifiedMs)})
	}
	return doc, nil
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

// Leaf is one leaf of `grove leaves --json` (SPEC §8).
type Leaf struct {
	Session   string `json:"session"`
	ID        string `json:"id"`
	Line      int    `json:"line"` // the leaf's physical line: tells apart leaves that share a duplicated id
	Type      string `json:"type"`
	Role      any    `json:"role"`
	Depth     *int   `json:"depth"`
	Timestamp any    `json:"timestamp"`
	Active    bool   `json:"active"`
	Kind      string `json:"kind"` // branch for a real leaf, else the first other kind on its path (SPEC §4.2)
	Preview   string `json:"preview"`
	Label     any    `json:"label"`
	Name      string `json:"session_name"`    // the session's name, "" if none
	Path      string `json:"path"`            // the session's file: two files may hold one session id
	Stale     bool   `json:"stale,omitempty"` // the file changed since it was indexed: no preview, run grove index
}

// Leaves is `grove leaves --json`: {"leaves":[...]}, newest activity
// first.
type Leaves struct {
	Leaves []Leaf         `json:"leaves"`
	Runs   []Run          `json:"runs,omitempty"` // inline sub-agent runs whose leaves are left out; only when there are some
	Listed []archive.Leaf `json:"-"`              // the leaves of Leaves, in order
	RunsOf []archive.Runs `json:"-"`              // the runs of Runs, by session
}

// Run is one inline sub-agent run in `grove leaves --json`: the session,
// the run's sidechain root and leaves, and the Task call that started it
// (call and tool_use_id null when no call's prompt matches the root).
type Run struct {
	Session   string   `json:"session"`
	Path      string   `json:"path"`
	Root      string   `json:"root"`
	Leaves    []string `json:"leaves"`
	Call      any      `json:"call"`
	ToolUseID any      `json:"tool_use_id"`
}

// ListLeaves is `grove leaves`: every leaf of the sessions f picks (its
// Workspace already a filter), and the inline sub-agent runs left out.
// Errors: Archive.Leaves' and Archive.RunsOf's.
func ListLeaves(ctx context.Context, a *archive.Archive, f archive.Filter) (*Leaves, error) {
	leaves, err := a.Leaves(ctx, f)
	if err != nil {
		return nil, err
	}
	doc := &Leaves{Leaves: []Leaf{}, Listed: leaves}
	for _, l := range leaves {
		j := Leaf{Session: l.Session.SessionID, ID: l.EntryID, Line: l.Line, Type: l.Type, Depth: l.Depth,
			Timestamp: Time(l.TsMs), Active: l.Active, Kind: l.PathKind, Preview: l.Preview, Name: l.Session.Name, Path: l.Session.Path, Stale: l.Stale}
		if l.Role != nil {
			j.Role = *l.Role
		}
		if l.Label != "" {
			j.Label = l.Label
		}
		doc.Leaves = append(doc.Leaves, j)
	}
	if doc.RunsOf, err = a.RunsOf(ctx, f); err != nil {
		return nil, err
	}
	for _, s := range doc.RunsOf {
		for _, r := range s.Runs {
			j := Run{Session: s.Session.SessionID, Path: s.Session.Path, Root: r.Root, Leaves: r.Leaves}
			if j.Leaves == nil {
				j.Leaves = []string{}
			}
			if r.Call != "" {
				j.Call, j.ToolUseID = r.Call, r.ToolUseID
			}
			doc.Runs = append(doc.Runs, j)
		}
	}
	return doc, nil
}

// Branch is one branch at a branch point: its first entry, the leaves it
// holds and a preview of it.
type Branch struct {
	ID      string `json:"id"`
	Leaves  int    `json:"leaves"`
	Kind    string `json:"kind"` // SPEC §4.2: branch, parallel, progress, replay or command
	Preview string `json:"preview"`
}

// BranchPoint is one branch point of `grove branches --json`: beyond SPEC
// §8's shape, which lists only the child ids, each child's branch.
type BranchPoint struct {
	Session  string   `json:"session"`
	Path     string   `json:"path"` // the session's file: two files may hold one session id
	ID       string   `json:"id"`
	Children []string `json:"children"`
	Leaves   int      `json:"leaves"`
	Label    any      `json:"label"`
	Preview  string   `json:"preview"`
	Branches []Branch `json:"child_branches"`
	Stale    bool     `json:"stale,omitempty"`
}

// Branches is `grove branches --json`: {"branches":[...]}.
type Branches struct {
	Branches []BranchPoint                `json:"branches"`
	Listed   []archive.SessionBranchPoint `json:"-"` // the branch points of Branches, in order
}

// ListBranches is `grove branches`: every branch point of the sessions f
// picks (its Workspace already a filter). Errors: Archive.BranchPoints'.
func ListBranches(ctx context.Context, a *archive.Archive, f archive.Filter) (*Branches, error) {
	bs, err := a.BranchPoints(ctx, f)
	if err != nil {
		return nil, err
	}
	doc := &Branches{Branches: []BranchPoint{}, Listed: bs}
	for _, b := range bs {
		j := BranchPoint{Session: b.Session.SessionID, Path: b.Session.Path, ID: b.ID, Leaves: b.Leaves, Preview: b.Preview, Stale: b.Stale}
		if b.Label != "" {
			j.Label = b.Label
		}
		for _, br := range b.Branches {
			j.Children = append(j.Children, br.ID)
			j.Branches = append(j.Branches, Branch{ID: br.ID, Leaves: br.Leaves, Kind: br.Kind, Preview: br.Preview})
		}
		doc.Branches = append(doc.Branches, j)
	}
	return doc, nil
}
