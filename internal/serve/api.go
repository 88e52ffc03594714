package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
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
	"/api/sessions":                  {command: "sessions", flags: []string{"workspace", "dialect", "first"}},
	"/api/workspaces":                {command: "workspaces", flags: []string{"workspace", "dialect"}},
	"/api/leaves":                    {command: "leaves", flags: []string{"session", "workspace", "dialect"}},
	"/api/branches":                  {command: "branches", flags: []string{"session", "workspace", "dialect"}},
	"/api/tree/{session}":            {command: "tree", flags: []string{"depth"}, bools: []string{"full", "flat"}, args: []string{"session"}},
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
		file := name == "file" && slices.Contains(rt.args, "session") // the file of an ambiguous id: see sessionArg
		if !slices.Contains(rt.flags, name) && !slices.Contains(rt.bools, name) && !(rt.query && name == "q") && !file {
			takes := append(append([]string{}, rt.flags...), rt.bools...)
			if rt.query {
				takes = append([]string{"q"}, takes...)
			}
			what := "no parameters"
			if len(takes) > 0 {
				what = strings.Join(takes, ", ")
			}
			apiError(w, http.StatusBadRequest, "usage", "/api/"+rt.command+" takes no parameter "+name+"; it takes "+what)
			return
		}
	}
	for _, name := range rt.flags {
		for _, v := range q[name] {
			if name == "session" && !idLike(v) {
				apiError(w, http.StatusBadRequest, "usage", "session is a session id or a unique prefix of one, not a path")
				return
			}
			if name == "workspace" && !strings.HasPrefix(v, "/") {
				apiError(w, http.StatusBadRequest, "usage", "workspace must be an absolute directory")
				return
			}
			args = append(args, "--"+name, v)
		}
	}
	for _, name := range rt.bools {
		if v := q.Get(name); v == "1" || v == "true" {
			args = append(args, "--"+name)
		}
	}
	args = append(args, "--")
	for _, name := range rt.args {
		v := r.PathValue(name)
		if name == "session" {
			arg, err := s.sessionArg(r)
			if err != nil {
				apiError(w, http.StatusNotFound, "unknown_session", err.Error())
				return
			}
			v = arg
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

// idLike reports whether v can only be a session id or prefix: no path.
func idLike(v string) bool {
	return v != "" && !strings.ContainsAny(v, `/\`) && !strings.HasSuffix(v, ".jsonl") && !strings.HasSuffix(v, ".zst")
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
