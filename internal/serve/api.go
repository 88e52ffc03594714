package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
)

// apiRoute is one /api route: the grove command it runs, the query
// parameters it takes as that command's flags, and its positional
// arguments from the path.
type apiRoute struct {
	command string
	flags   []string // query parameters passed as --NAME VALUE (repeatable ones repeat)
	bools   []string // query parameters passed as --NAME when 1 or true
	args    []string // path values passed, in order, as positional arguments
	query   bool     // ?q= is the last positional argument (search)
}

// apiRoutes are SPEC §9's /api routes: the CLI's --json documents.
var apiRoutes = map[string]apiRoute{
	"/api/sessions":                  {command: "sessions", flags: []string{"workspace", "dialect", "first"}, bools: []string{"all"}},
	"/api/workspaces":                {command: "workspaces", flags: []string{"workspace", "dialect"}},
	"/api/leaves":                    {command: "leaves", flags: []string{"session", "workspace", "dialect"}, bools: []string{"all"}},
	"/api/branches":                  {command: "branches", flags: []string{"session", "workspace", "dialect"}, bools: []string{"all"}},
	"/api/tree/{session}":            {command: "tree", flags: []string{"depth"}, bools: []string{"full", "flat", "all"}, args: []string{"session"}},
	"/api/path/{session}":            {command: "path", args: []string{"session"}},
	"/api/path/{session}/{leaf}":     {command: "path", args: []string{"session", "leaf"}},
	"/api/messages/{session}":        {command: "messages", args: []string{"session"}},
	"/api/messages/{session}/{leaf}": {command: "messages", args: []string{"session", "leaf"}},
	"/api/context/{session}":         {command: "context", bools: []string{"llm"}, args: []string{"session"}},
	"/api/context/{session}/{leaf}":  {command: "context", bools: []string{"llm"}, args: []string{"session", "leaf"}},
	"/api/verify":                    {command: "verify", flags: []string{"session", "dialect"}},
	"/api/search":                    {command: "search", flags: []string{"workspace", "session", "dialect", "role", "type", "since", "until", "branch", "sort", "limit", "offset"}, bools: []string{"no-dedupe"}, query: true},
}

// apiRoutes adds the /api routes to the mux, and /api itself: the list
// of them.
func (s *Server) apiRoutes() {
	for pattern, rt := range apiRoutes {
		s.mux.HandleFunc("GET "+pattern, func(w http.ResponseWriter, r *http.Request) { s.api(w, r, rt) })
	}
	s.mux.HandleFunc("GET /api/{$}", func(w http.ResponseWriter, r *http.Request) {
		var list []string
		for p := range apiRoutes {
			list = append(list, p)
		}
		sort.Strings(list)
		writeDoc(w, http.StatusOK, map[string]any{"routes": list})
	})
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "not_found", "no API route "+r.URL.Path+"; GET /api/ lists them")
	})
}

// api runs rt's command with the request's parameters and answers its
// JSON document: 200 for exit status 0; for a failure the error document
// with 400 (usage, bad_query), 404 (unknown_session, unknown_entry), 300
// (ambiguous_session), 409 (stale_index), 422 (a path the file's damage
// breaks: missing_parent, cycle, duplicate_id) or 500.
func (s *Server) api(w http.ResponseWriter, r *http.Request, rt apiRoute) {
	q := r.URL.Query()
	args := []string{rt.command}
	for name := range q {
		named := slices.Contains(rt.args, "session") || slices.Contains(rt.flags, "session")
		file := name == "file" && named // the file of an ambiguous id: see sessionArg
		if !slices.Contains(rt.flags, name) && !slices.Contains(rt.bools, name) && !(rt.query && name == "q") && !file {
			takes := append(append([]string{}, rt.flags...), rt.bools...)
			if rt.query {
				takes = append([]string{"q"}, takes...)
			}
			if named {
				takes = append(takes, "file")
			}
			what := "no parameters"
			if len(takes) > 0 {
				what = strings.Join(takes, ", ")
			}
			apiError(w, http.StatusBadRequest, "usage", "/api/"+rt.command+" takes no parameter "+name+"; it takes "+what)
			return
		}
	}
	if q.Has("file") && !slices.Contains(rt.args, "session") && !q.Has("session") {
		apiError(w, http.StatusBadRequest, "usage", "file picks one of the sessions that share the id given as session")
		return
	}
	for _, name := range rt.flags {
		for _, v := range q[name] {
			if name == "session" {
				var ok bool
				if v, ok = s.apiSession(w, r, v); !ok {
					return
				}
			}
			if name == "workspace" && !s.isWorkspaceParam(r, v) {
				apiError(w, http.StatusBadRequest, "usage", "workspace must be an absolute directory, a Windows path, or a workspace as /api/workspaces lists it")
				return
			}
			args = append(args, "--"+name+"="+v) // one argument: a value may start with "-"
		}
	}
	for _, name := range rt.bools {
		switch v := q.Get(name); v {
		case "1", "true":
			args = append(args, "--"+name)
		case "", "0", "false":
		default:
			apiError(w, http.StatusBadRequest, "usage", name+" is 1 or true, 0 or false, not "+strconv.Quote(v))
			return
		}
	}
	args = append(args, "--")
	for _, name := range rt.args {
		v := r.PathValue(name)
		if name == "session" {
			var ok bool
			if v, ok = s.apiSession(w, r, v); !ok {
				return
			}
		}
		args = append(args, v)
	}
	if rt.query {
		if strings.TrimSpace(q.Get("q")) == "" {
			apiError(w, http.StatusBadRequest, "usage", "search needs ?q=")
			return
		}
		args = append(args, q.Get("q"))
	}
	var out bytes.Buffer
	status := s.opts.API(r.Context(), args, &out)
	code := http.StatusOK
	if status != 0 {
		code = statusOf(out.Bytes(), status)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(out.Bytes())
}

// statusOf is the HTTP status of a failed command's error document.
func statusOf(doc []byte, exit int) int {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(doc, &e)
	switch e.Error.Code {
	case "usage", "bad_query":
		return http.StatusBadRequest
	case "unknown_session", "unknown_entry":
		return http.StatusNotFound
	case "ambiguous_session":
		return http.StatusMultipleChoices
	case "stale_index":
		return http.StatusConflict
	case "missing_parent", "cycle", "duplicate_id":
		return http.StatusUnprocessableEntity
	}
	if exit == 2 {
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// apiSession is what the command is given for the session id: the file
// the index holds for it (pickSession), so that the CLI never reads a
// name from the request as a path. When there is none, an id the CLI
// would read as an id is given as it is, and the CLI answers its own
// error (unknown_session, ambiguous_session with the candidates); any
// other is answered here as unknown_session (false: answered).
func (s *Server) apiSession(w http.ResponseWriter, r *http.Request, id string) (string, bool) {
	arg, err := s.pickSession(r, id)
	if err == nil {
		return arg, true
	}
	var je *errs.Error
	session := errors.As(err, &je) && isSessionError(je)
	if session && id != "" && !strings.ContainsAny(id, `/\`) && !strings.HasSuffix(id, ".jsonl") && r.URL.Query().Get("file") == "" {
		return id, true
	}
	if session {
		writeDoc(w, http.StatusNotFound, map[string]any{"error": map[string]string{"code": string(je.Code), "message": je.Message, "session": je.Session}})
		return "", false
	}
	apiError(w, http.StatusInternalServerError, "error", err.Error())
	return "", false
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	writeDoc(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func writeDoc(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
