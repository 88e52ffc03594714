package serve

import (
	"bytes"
	"errors"
	"html/template"
	"io/fs"
	"log"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/plural"
)

// Limits of the listing pages: more is said, not shown.
const (
	recentSessions = 100  // sessions on /
	workspaceLimit = 1000 // sessions and leaves on /w
)

// page is what every page's layout needs.
type page struct {
	Title   string
	Kind    string // home, workspace, tree, transcript, search, error
	Session string // the session id a tree or transcript shows, for live updates
	Sub     string // after the title in <title>: a transcript's leaf
	Query   string // the search box's text
}

// parsePages parses the layout with each page's content.
func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"when":      when,
		"count":     count,
		"wsHref":    func(dir string) string { return "/w?path=" + url.QueryEscape(dir) },
		"sessHref":  sessionHref,
		"qual":      qualified,
		"entryHref": entryHref,
		"short":     shortID,
		"lastOf":    func(from, n int) int { return from + n - 1 },
	}
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || name == "parts" {
			continue
		}
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
	}
	return out
}

// render writes page name with data and status: made whole first, so a
// template error is a 500, not half a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&b, "layout.html", data); err != nil {
		log.Printf("grove serve: render %s: %v", name, err)
		http.Error(w, "grove serve: this page could not be made: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	v := newVisibleHTML(w)
	v.Write(b.Bytes())
	v.Close()
}

// errorView is the error page's data.
type errorView struct {
	page
	Status     int
	Code       string
	Message    string
	Hint       string
	Candidates []errs.Candidate
	Session    string // for a session error and stale_index: the id asked for (the page reloads when it changes)
	Tree       string // the session's tree, for a path its damage breaks
}

// isSessionError reports whether e is the error of a session argument that
// names no indexed session or several (archive.UnknownSession; SPEC §3.3).
func isSessionError(e *errs.Error) bool {
	return e.Code == errs.CodeUnknownSession || e.Code == errs.CodeAmbiguousSession
}

// fail answers err as an error page: 404 for an unknown session or entry,
// 422 for an entry whose path the file's damage breaks (missing_parent,
// cycle, duplicate_id), 300 with the candidates for an ambiguous session
// id, 409 for a session
// file that changed since it was indexed (the index catches up), 400 for
// a bad query or filter, else 500.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	v := errorView{page: page{Title: "error", Kind: "error", Query: r.URL.Query().Get("q")}, Status: http.StatusInternalServerError, Code: "error", Message: err.Error()}
	var je *errs.Error
	switch {
	case errors.As(err, &je) && isSessionError(je):
		v.Code, v.Message, v.Session = string(je.Code), je.Message, je.Session
		v.Status = http.StatusNotFound
		if je.Code == errs.CodeUnknownSession {
			// The CLI's message tells how to name a session on a command
			// line; here it is named by id, and the watch indexes.
			v.Message = "no indexed session is named " + strconv.Quote(je.Session)
			v.Hint = "a session is named by its id or a unique prefix of 4+ characters; grove serve indexes the files under its roots as they change, so one outside them is not here"
		}
		if je.Code == errs.CodeAmbiguousSession {
			v.Status, v.Candidates = http.StatusMultipleChoices, je.Candidates
		}
	case errors.As(err, &je):
		v.Code, v.Message, v.Hint = string(je.Code), strings.TrimSuffix(je.Error(), " ["+string(je.Code)+"]"), je.Hint
		switch je.Code {
		case errs.CodeUnknownEntry:
			v.Status = http.StatusNotFound
		case errs.CodeMissingParent, errs.CodeCycle, errs.CodeDuplicateID:
			// The file's damage, not the server's: no path reaches
			// this entry (SPEC §4.2); the tree shows where it breaks.
			v.Status = http.StatusUnprocessableEntity
			if v.Hint == "" {
				v.Hint = "the session's tree shows the damage; grove recover " + je.Path + " gives every line"
			}
			if id := r.PathValue("session"); id != "" {
				v.Tree = sessionHref(id, r.URL.Query().Get("file"))
			}
		case errs.CodeStaleIndex:
			v.Status, v.Session = http.StatusConflict, r.PathValue("session")
			v.Hint = "the session file changed since it was indexed; this server indexes it again within a moment, and the page reloads then"
		case errs.CodeBadQuery:
			v.Status = http.StatusBadRequest
		}
	case errors.Is(err, errBadRequest):
		v.Status, v.Code = http.StatusBadRequest, "usage"
	case r.Context().Err() != nil:
		return // the page went away
	}
	v.Title = http.StatusText(v.Status)
	s.render(w, v.Status, "error", v)
}

// staleWait is how long a page whose session file changed since it was
// indexed waits for the watch to index it (its batches wait at most 2 s)
// before it answers 409.
const staleWait = 3 * time.Second

// fresh runs read, and once more after the watch's next pass when its
// error is stale_index: a session an agent is writing is often a little
// ahead of the index, and the server's own watch catches up within its
// debounce. next is s.opts.Events.Next(), taken before read ran.
func (s *Server) fresh(r *http.Request, read func() error) error {
	var next <-chan struct{}
	if s.opts.Events != nil {
		next = s.opts.Events.Next()
	}
	err := read()
	var je *errs.Error
	if next == nil || !errors.As(err, &je) || je.Code != errs.CodeStaleIndex {
		return err
	}
	t := time.NewTimer(staleWait)
	defer t.Stop()
	select {
	case <-next:
		return read()
	case <-t.C:
		return err
	case <-r.Context().Done():
		return r.Context().Err()
	}
}

// errBadRequest marks a request whose parameters are wrong (400).
var errBadRequest = errors.New("bad request")

func badRequest(msg string) error { return &wrapped{msg, errBadRequest} }

type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusNotFound, "error", errorView{page: page{Title: "Not found", Kind: "error"}, Status: http.StatusNotFound,
		Code: "not_found", Message: "no page here: " + r.URL.Path})
}

// sessionArg is the session a request names, as what archive is then
// asked for: the file the index holds for it. {session} of the path is a
// session id or a unique prefix of one, never a file path, whatever it
// holds (SPEC §9: files are opened by the index's path for an id); ?file=
// picks one of the sessions that share that id (an ambiguous id), and
// must be one the index lists for it.
func (s *Server) sessionArg(r *http.Request) (string, error) {
	return s.pickSession(r, r.PathValue("session"))
}

// pickSession is sessionArg for the id given: the index's file for it,
// chosen by the request's ?file= when the id is shared.
func (s *Server) pickSession(r *http.Request, id string) (string, error) {
	file := r.URL.Query().Get("file")
	// In a team's index ?file= may name the source too
	// (archive.QualifiedName): several machines may have the path.
	source, path, qualified := strings.Cut(file, "\x00")
	if !qualified {
		path = file
	}
	found, err := s.a.ResolveID(r.Context(), id)
	var je *errs.Error
	switch {
	case err == nil && (file == "" || path == found.Path && (!qualified || source == found.Source)):
		return found.Path, nil
	case errors.As(err, &je) && je.Code == errs.CodeAmbiguousSession && file != "":
		for _, c := range je.Candidates {
			if c.Path == path && (!qualified || c.Source == source) {
				if qualified {
					return archive.QualifiedName(source, path), nil
				}
				return c.Path, nil
			}
		}
	case err != nil:
		return "", err
	}
	return "", archive.UnknownSession(id+" in "+file, "")
}

// qualified is the ?file= of a candidate: its path, with its source when
// it has one (a team's index: archive.QualifiedName).
func qualified(source, path string) string {
	if source == "" {
		return path
	}
	return archive.QualifiedName(source, path)
}

// sessionHref links a session's tree; file is given when the id is not
// unique (Hit.AmbiguousID).
func sessionHref(id string, file ...string) string {
	h := "/s/" + segment(id)
	if len(file) > 0 && file[0] != "" {
		h += "?file=" + url.QueryEscape(file[0])
	}
	return h
}

// entryHref links the transcript of the path to entry (a leaf or any
// entry) of a session, at that entry; file is given when the session id
// is not unique.
func entryHref(session, entry string, file ...string) string {
	h := "/s/" + segment(session) + "/" + segment(entry)
	if len(file) > 0 && file[0] != "" {
		h += "?file=" + url.QueryEscape(file[0])
	}
	return h + "#entry-" + url.PathEscape(entry)
}

// ShortID is how many characters of an entry id the tree and the branch
// boxes show (pi's ids are 8 hex digits; a Claude Code UUID's first 8
// are its first group). The full id is in each link and in the title a
// pointer shows, so two ids that share their first 8 characters still
// lead to their own entries.
const ShortID = 8

// shortID is id's first ShortID characters (runes, so no character is
// cut in half), or id itself when it is no longer.
func shortID(id string) string {
	n := 0
	for i := range id {
		if n == ShortID {
			return id[:i]
		}
		n++
	}
	return id
}

// segment is s as one segment of a URL path: escaped, and "." and ".."
// spelled %2E and %2E%2E, which a browser would otherwise resolve away.
func segment(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

// when is a Unix-millisecond time in UTC, minutes; "" for none.
func when(ms *int64) string {
	if ms == nil {
		return ""
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02 15:04")
}

// count is "N one" or "N many", N grouped by thousands.
func count(n int, one, many string) string {
	return grouped(n) + " " + plural.Noun(n, one, many)
}

func grouped(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
