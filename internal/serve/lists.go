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
	Recent     []archive.Session
	Sessions   int // sessions in the index
	Pending    bool
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
	v.Recent = all[:min(len(all), recentSessions)]
	s.render(w, http.StatusOK, "home", v)
}

// workspaceView is /w?path=DIR: its sessions and every leaf, newest first.
type workspaceView struct {
	page
	Dir      string
	Sessions []archive.Session
	Leaves   []archive.Leaf
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
	v := workspaceView{page: page{Title: dir, Kind: "workspace"}, Dir: dir, Sessions: sessions}
	if len(sessions) > 0 {
		if v.Leaves, err = s.a.Leaves(ctx, f); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	if len(v.Leaves) > workspaceLimit {
		v.More = len(v.Leaves) - workspaceLimit
		v.Leaves = v.Leaves[:workspaceLimit]
	}
	s.render(w, http.StatusOK, "workspace", v)
}
