package serve

import (
	"net/http"
	"path/filepath"

	"github.com/grove-sessions/grove/archive"
)

// homeView is /: every workspace, and the most recent sessions.
type homeView struct {
	page
	Workspaces []archive.Workspace
	Recent     []sessionRow
	Sessions   int // sessions in the index
	Pending    bool
}

// sessionRow is a session of a list, with the file its links name when
// another file holds the same session id (else "": the id is enough).
type sessionRow struct {
	archive.Session
	File string
}

// leafRow is a leaf of a list, File as sessionRow's.
type leafRow struct {
	archive.Leaf
	File string
}

// sharedIDs are the session ids that more than one of all's files hold:
// a link by one of them alone leads to the page that asks which file
// (300), so the lists' links name the file too (sessionArg's ?file=).
func sharedIDs(all []archive.Session) map[string]bool {
	seen := map[string]bool{}
	shared := map[string]bool{}
	for _, s := range all {
		shared[s.SessionID] = seen[s.SessionID]
		seen[s.SessionID] = true
	}
	return shared
}

// fileIf is s's file when its id is shared, else "".
func fileIf(shared map[string]bool, s *archive.Session) string {
	if shared[s.SessionID] {
		return s.Path
	}
	return ""
}

// sessionRows are the rows of sessions.
func sessionRows(sessions []archive.Session, shared map[string]bool) []sessionRow {
	rows := make([]sessionRow, len(sessions))
	for i := range sessions {
		rows[i] = sessionRow{Session: sessions[i], File: fileIf(shared, &sessions[i])}
	}
	return rows
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
	v.Recent = sessionRows(all[:min(len(all), recentSessions)], sharedIDs(all))
	s.render(w, http.StatusOK, "home", v)
}

// workspaceView is /w?path=DIR: its sessions and every leaf, newest first.
type workspaceView struct {
	page
	Dir      string
	Sessions []sessionRow
	Leaves   []leafRow
	More     int // leaves not shown
}

func (s *Server) workspace(w http.ResponseWriter, r *http.Request) {
	dir := r.URL.Query().Get("path")
	if dir == "" || !filepath.IsAbs(dir) {
		s.fail(w, r, badRequest("/w wants ?path= an absolute directory, as /'s workspace links give"))
		return
	}
	dir = filepath.Clean(dir)
	ctx := r.Context()
	f := archive.Filter{Workspace: dir}
	sessions, err := s.a.Pick(ctx, f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := workspaceView{page: page{Title: dir, Kind: "workspace"}, Dir: dir}
	var leaves []archive.Leaf
	shared := map[string]bool{}
	if len(sessions) > 0 {
		if leaves, err = s.a.Leaves(ctx, f); err != nil {
			s.fail(w, r, err)
			return
		}
		all, err := s.a.Sessions(ctx, "") // an id may be shared with a file elsewhere
		if err != nil {
			s.fail(w, r, err)
			return
		}
		shared = sharedIDs(all)
	}
	v.Sessions = sessionRows(sessions, shared)
	if len(leaves) > workspaceLimit {
		v.More = len(leaves) - workspaceLimit
		leaves = leaves[:workspaceLimit]
	}
	for _, l := range leaves {
		v.Leaves = append(v.Leaves, leafRow{Leaf: l, File: fileIf(shared, l.Session)})
	}
	s.render(w, http.StatusOK, "workspace", v)
}
