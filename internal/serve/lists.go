package serve

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

// homeView is /: every workspace, and the most recent sessions.
type homeView struct {
	page
	Workspaces []archive.Workspace
	Recent     []sessionRow
	Sessions   int // sessions in the index
	Pending    bool
	// Kept says what the kept store costs (SPEC §11), "" when there is none.
	Kept string
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ws, err := s.a.Workspaces(ctx, "")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	all, err := s.a.Sessions(ctx, "")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := homeView{page: page{Title: "grove", Kind: "home"}, Workspaces: ws, Sessions: len(all)}
	v.Recent = rowsOf(all[:min(len(all), recentSessions)], sharedIDs(all))
	s.parentLinks(ctx, v.Recent)
	if c, ok, err := s.a.KeptCost(ctx); err == nil && ok {
		v.Kept = fmt.Sprintf("Kept: %.1f MB for %s; %s gone.", float64(c.Bytes)/1e6, plural.Count(c.Files, "session file", "session files"), plural.Count(c.Gone, "session", "sessions"))
		if c.Earlier > 0 {
			v.Kept = strings.TrimSuffix(v.Kept, ".") + "; " + plural.Count(c.Earlier, "earlier version", "earlier versions") + "."
		}
	}
	s.render(w, http.StatusOK, "home", v)
}

// workspaceView is /w?path=DIR: its sessions and every leaf, newest first.
type workspaceView struct {
	page
	Dir      string
	Sessions []sessionRow
	Leaves   []leafRow
	More     int // leaves not shown
	// AllSessions counts the workspace's sessions; Sessions holds the
	// most recent workspaceLimit of them.
	AllSessions int
	// All lists every leaf with its kind (?all=1), not only the real ones
	// (SPEC §4.2); Toggle is this page the other way, offered when some
	// session has leaves that are not real (Beside).
	All    bool
	Beside bool
	Toggle string
}

func (s *Server) workspace(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.workspaceParam(r, r.URL.Query().Get("path"))
	ctx := r.Context()
	if !ok {
		s.fail(w, r, badRequest("/w wants ?path= an absolute directory, a Windows path, or a workspace as / lists it"))
		return
	}
	f := archive.Filter{Workspace: dir, All: r.URL.Query().Get("all") == "1"}
	sessions, err := s.a.Pick(ctx, f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	shared, err := s.sharedIDs(ctx, sessions)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := workspaceView{page: page{Title: dir, Kind: "workspace"}, Dir: dir, Sessions: rowsOf(sessions[:min(len(sessions), workspaceLimit)], shared),
		AllSessions: len(sessions), All: f.All, Toggle: r.URL.RequestURI()}
	for _, x := range sessions {
		v.Beside = v.Beside || x.AllLeaves != x.Leaves
	}
	if f.All {
		q := r.URL.Query()
		q.Del("all")
		v.Toggle = r.URL.Path + "?" + q.Encode()
	} else {
		v.Toggle = withParam(v.Toggle, "all=1")
	}
	s.parentLinks(ctx, v.Sessions)
	var leaves []archive.Leaf
	if len(sessions) > 0 {
		total := 0
		// Only the leaves drawn have their previews read.
		if leaves, total, err = s.a.NewestLeaves(ctx, f, workspaceLimit); err != nil {
			s.fail(w, r, err)
			return
		}
		v.More = total - len(leaves)
	}
	for _, l := range leaves {
		row := leafRow{Leaf: l}
		if shared[l.Session.SessionID] {
			row.File = l.Session.Path
		}
		v.Leaves = append(v.Leaves, row)
	}
	s.render(w, http.StatusOK, "workspace", v)
}

// sessionRow is a listed session; File is its path when another session
// has its id, so that its link names the file (/s/ID?file=), not the
// ambiguous id (SPEC §3.3: a 300 listing the candidates).
type sessionRow struct {
	archive.Session
	File string
	// Machine is the session's source when the listing holds sessions of
	// more than one (a team's index, SPEC §10), else "".
	Machine string
	// ChildKind is what the session is of its ParentSession, as its agent
	// says ("sub-agent", "fork", "child"); "" without a parent.
	// ParentHref links the parent's page, "" when the index holds no
	// session of that id or file (ParentSession is then shown unlinked).
	ChildKind, ParentHref string
}

// leafRow is a listed leaf; File as sessionRow's.
type leafRow struct {
	archive.Leaf
	File string
}

func rowsOf(list []archive.Session, shared map[string]bool) []sessionRow {
	rows := make([]sessionRow, len(list))
	many := false
	for i, s := range list {
		rows[i].Session = s
		if s.ParentSession != "" {
			rows[i].ChildKind = archive.AgentFor(s.Dialect).ChildKind(s.Path)
		}
		if shared[s.SessionID] {
			rows[i].File = s.Path
		}
		many = many || s.Source != list[0].Source
	}
	for i := range rows {
		if many {
			rows[i].Machine = rows[i].Source
			if rows[i].File != "" { // the path alone may be another source's too
				rows[i].File = archive.QualifiedName(rows[i].Source, rows[i].Path)
			}
		}
	}
	return rows
}

// sharedIDs are the session ids that more than one of all has.
func sharedIDs(all []archive.Session) map[string]bool {
	n := map[string]int{}
	shared := map[string]bool{}
	for _, s := range all {
		if n[s.SessionID]++; n[s.SessionID] > 1 {
			shared[s.SessionID] = true
		}
	}
	return shared
}

// sharedIDs are the ids of some that another session of the index has
// too (perhaps one outside the list).
func (s *Server) sharedIDs(ctx context.Context, some []archive.Session) (map[string]bool, error) {
	if len(some) == 0 {
		return nil, nil
	}
	all, err := s.a.Sessions(ctx, "")
	if err != nil {
		return nil, err
	}
	return sharedIDs(all), nil
}

// workspaceParam is a request's workspace (/w?path=, ?workspace=) as the
// workspace rule takes it (SPEC §3.3): an absolute directory, cleaned; a
// Windows path (e:\Workspace\app, from a session made on Windows) as it is
// written, which matches with "\" and "/" alike and the drive letter in
// either case; or a workspace as / lists it, byte for byte (Claude Code's
// escaped folder name). ok is false for anything else: a relative path,
// which the server's own current directory would give a meaning the
// browser never meant.
func (s *Server) workspaceParam(r *http.Request, dir string) (string, bool) {
	switch {
	case filepath.IsAbs(dir):
		return filepath.Clean(dir), true
	case archive.IsWindowsPath(dir):
		return dir, true
	case dir != "" && s.holdsWorkspace(r, dir):
		return dir, true
	}
	return "", false
}

// isWorkspaceParam reports whether workspaceParam takes dir.
func (s *Server) isWorkspaceParam(r *http.Request, dir string) bool {
	_, ok := s.workspaceParam(r, dir)
	return ok
}

// holdsWorkspace reports whether the index lists dir as a workspace, byte
// for byte.
func (s *Server) holdsWorkspace(r *http.Request, dir string) bool {
	ws, err := s.a.Workspaces(r.Context(), "")
	if err != nil {
		return false
	}
	for _, w := range ws {
		if w.Workspace == dir {
			return true
		}
	}
	return false
}

// parentLinks sets the ParentHref of each row whose parent session the
// index holds: a session whose id (claude, codex) or file (pi) is the
// row's ParentSession, linked by id and file.
func (s *Server) parentLinks(ctx context.Context, rows []sessionRow) {
	found := map[string]string{}
	for i := range rows {
		p := rows[i].ParentSession
		if p == "" {
			continue
		}
		h, ok := found[p]
		if !ok {
			switch t, err := s.a.ResolveID(ctx, p); {
			case err != nil:
			case t.SessionID == p:
				h = sessionHref(p)
			case t.Path == p: // a pi fork names its parent's file
				h = sessionHref(t.SessionID, t.Path)
			}
			found[p] = h
		}
		rows[i].ParentHref = h
	}
}
