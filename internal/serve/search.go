package serve

import (
	"errors"
	"html/template"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/grove-sessions/grove/archive"
)

// hitsPerPage is how many hits a search page shows: more than grove
// search's archive.DefaultSearchLimit, since a page scrolls.
const hitsPerPage = 50

// searchView is /search: the form with the CLI's filters and the hits.
type searchView struct {
	page
	F       searchForm
	Hits    []hitView
	Total   int
	Exact   bool
	Pending int      // sessions whose search text is still being built
	Unknown []string // notes on role and type values no entry has
	Asked   bool
	Prev    string
	Next    string
	From    int
	Dialect []string
}

// searchForm is the form's fields, as given.
type searchForm struct {
	Q, Workspace, Session, Role, Type, Dialect, Since, Until, Branch, Sort string
	Offset                                                                 int
}

// hitView is one hit.
type hitView struct {
	Href      string
	Session   string
	Name      string
	Workspace string
	What      string
	Time      string
	Snippet   template.HTML
	AlsoIn    int
	ByID      bool
	Stale     bool
	Edited    string // "replaced" or "removed": a context edit on the active path changed what the model sees of it
	Abandoned bool   // the entry is not on its session's active path (SPEC §4.2)
	Leaves    int    // the real leaves whose paths hold it
	Artifact  string // the kind of the artifact the entry is on (parallel, progress, replay, command); "" on a real branch
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := searchForm{Q: q.Get("q"), Workspace: q.Get("workspace"), Session: q.Get("session"), Role: q.Get("role"), Type: q.Get("type"),
		Dialect: q.Get("dialect"), Since: q.Get("since"), Until: q.Get("until"), Branch: q.Get("branch"), Sort: q.Get("sort")}
	v := searchView{page: page{Title: "Search", Kind: "search", Query: f.Q}, F: f}
	for _, d := range archive.Dialects {
		v.Dialect = append(v.Dialect, string(d))
	}
	if strings.TrimSpace(f.Q) == "" {
		s.render(w, http.StatusOK, "search", v)
		return
	}
	v.Title = f.Q + " · search"
	o, err := searchOptions(f, q.Get("offset"))
	if err == nil && f.Workspace != "" && !filepath.IsAbs(f.Workspace) {
		// A Windows path or a workspace as / lists it, as written.
		var ok bool
		if o.Workspace, ok = s.workspaceParam(r, f.Workspace); !ok {
			err = badRequest("workspace must be an absolute directory, a Windows path, or a workspace as / lists it, not " + strconv.Quote(f.Workspace))
		}
	}
	if err == nil && o.Session != "" {
		// An id, never a path (SPEC §9); ?file= picks among sessions
		// that share it.
		o.Session, err = s.pickSession(r, o.Session)
	}
	if err == nil {
		// A role grove has no name for and no entry has is refused, as
		// grove search refuses it.
		var re *archive.RoleError
		if err = s.a.CheckRoles(r.Context(), o.Roles); errors.As(err, &re) {
			err = badRequest("role: " + re.Error())
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	res, err := s.a.Search(r.Context(), o)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v.Asked, v.Total, v.Exact, v.From = true, res.Total, res.Exact, o.Offset+1
	v.Unknown = s.a.UnknownValues(r.Context(), o) // a role or type no entry has, as grove search says
	if res.TextPending {
		v.Pending = max(res.Pending, 1)
	}
	for _, h := range res.Hits {
		v.Hits = append(v.Hits, hitOf(h))
	}
	page := func(off int) string {
		q2 := r.URL.Query()
		q2.Set("offset", strconv.Itoa(off))
		return "/search?" + q2.Encode()
	}
	if o.Offset > 0 {
		v.Prev = page(max(o.Offset-hitsPerPage, 0))
	}
	if o.Offset+len(res.Hits) < res.Total {
		v.Next = page(o.Offset + hitsPerPage)
	}
	s.render(w, http.StatusOK, "search", v)
}

// searchOptions checks the form as grove search checks its flags (SPEC
// §8): the same options, the same refusals (a 400 here).
func searchOptions(f searchForm, offset string) (archive.SearchOptions, error) {
	o := archive.SearchOptions{Query: f.Q, Session: f.Session, Dialect: f.Dialect, Roles: split(f.Role), Types: split(f.Type),
		Sort: f.Sort, Limit: hitsPerPage}
	if o.Sort == "" {
		o.Sort = "recent"
	}
	if o.Sort != "recent" && o.Sort != "relevance" {
		return o, badRequest("sort must be recent or relevance, not " + strconv.Quote(f.Sort))
	}
	switch f.Branch {
	case "", "all":
	case "active":
		o.Active = true
	case "abandoned":
		o.Abandoned = true
	default:
		return o, badRequest("branch must be active, abandoned or all, not " + strconv.Quote(f.Branch))
	}
	if f.Dialect != "" {
		known := false
		for _, d := range archive.Dialects {
			known = known || string(d) == f.Dialect
		}
		if !known {
			return o, badRequest("no dialect " + strconv.Quote(f.Dialect))
		}
	}
	if filepath.IsAbs(f.Workspace) { // anything else is the server's to check (Server.workspaceParam)
		ws, err := archive.WorkspaceDir(f.Workspace)
		if err != nil {
			return o, badRequest("workspace must be an absolute directory, not " + strconv.Quote(f.Workspace))
		}
		o.Workspace = ws
	}
	if offset != "" {
		n, err := strconv.Atoi(offset)
		if err != nil || n < 0 {
			return o, badRequest("offset must be 0 or more, not " + strconv.Quote(offset))
		}
		o.Offset = n
	}
	now := time.Now()
	for _, w := range []struct {
		name, v string
		to      **time.Time
	}{{"since", f.Since, &o.Since}, {"until", f.Until, &o.Until}} {
		if w.v == "" {
			continue
		}
		t, err := archive.ParseWhen(w.v, now, w.name == "until")
		if err != nil {
			return o, badRequest(w.name + ": " + err.Error())
		}
		*w.to = &t
	}
	if o.Since != nil && o.Until != nil && !o.Until.After(*o.Since) {
		return o, badRequest("until is not after since: nothing can match")
	}
	return o, nil
}

// split is a comma-separated list, blanks dropped.
func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// hitOf is h's view: a link to the transcript of the path to the hit's
// entry, at it (a session hit: the session's tree), and its snippet with
// the matched terms in <mark>, every part escaped.
func hitOf(h archive.Hit) hitView {
	file := ""
	if h.AmbiguousID {
		file = h.Path
	}
	v := hitView{Session: h.SessionID, Workspace: h.Workspace, What: h.Type, Time: when(h.TsMs), AlsoIn: len(h.AlsoIn),
		ByID: h.ByID, Stale: h.Stale, Edited: h.Edited, Snippet: marked(h.Snippet),
		Abandoned: h.Branch == archive.BranchAbandoned, Leaves: h.LeavesTotal, Artifact: h.Artifact}
	if h.Role != nil {
		v.What = *h.Role
	}
	switch {
	case h.Type == "session" || h.EntryID == "":
		v.Href = sessionHref(h.SessionID, file)
	default:
		v.Href = entryHref(h.SessionID, h.EntryID, file)
	}
	return v
}

// marked is a snippet as HTML: its text escaped, each MarkOpen…MarkClose
// span a <mark>.
func marked(snippet string) template.HTML {
	var b strings.Builder
	for {
		i := strings.Index(snippet, archive.MarkOpen)
		if i < 0 {
			break
		}
		j := strings.Index(snippet[i+len(archive.MarkOpen):], archive.MarkClose)
		if j < 0 {
			break
		}
		b.WriteString(template.HTMLEscapeString(snippet[:i]))
		b.WriteString("<mark>")
		b.WriteString(template.HTMLEscapeString(snippet[i+len(archive.MarkOpen) : i+len(archive.MarkOpen)+j]))
		b.WriteString("</mark>")
		snippet = snippet[i+len(archive.MarkOpen)+j+len(archive.MarkClose):]
	}
	b.WriteString(template.HTMLEscapeString(snippet))
	return template.HTML(b.String())
}
