package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/cliutil"
	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/plural"
)

// SearchArgs are the arguments of search (grove search's flags and
// QUERY).
type SearchArgs struct {
	Query     string   `json:"query" jsonschema:"what to find: words are ANDed; \"quoted phrases\"; -word excludes; word* is a prefix; a OR b matches either. Case and Latin accents are ignored; Chinese, Japanese and Korean text matches any substring. An entry id or session id (or a unique prefix of 4+ characters) finds that entry or session"`
	Workspace string   `json:"workspace,omitempty" jsonschema:"only sessions whose workspace (the directory the session worked in) is this directory or below it: /a/b takes /a/b and /a/b/c, not /a/bc; a Windows path or a workspace as workspaces lists it is taken as written; a relative path is from grove mcp's working directory"`
	Session   string   `json:"session,omitempty" jsonschema:"only this session: its id, a unique prefix of its id (4+ characters) or its file's path, as sessions lists them"`
	Dialect   string   `json:"dialect,omitempty" jsonschema:"only sessions of this dialect: pi, plain, messages, claude (Claude Code) or codex"`
	Role      []string `json:"role,omitempty" jsonschema:"only entries of these roles, matched exactly (each may also be comma-separated): one of grove's roles, or another an indexed entry has"`
	Type      []string `json:"type,omitempty" jsonschema:"only entries of these types (message, compaction, branch_summary, label, ...; each may also be comma-separated)"`
	Since     string   `json:"since,omitempty" jsonschema:"only entries at or after this time: a date (2026-01-05), an RFC 3339 time, or a span back from now (30m, 12h, 7d, 2w)"`
	Until     string   `json:"until,omitempty" jsonschema:"only entries before this time (a date includes that day)"`
	Branch    string   `json:"branch,omitempty" jsonschema:"all (every entry), active (only entries on their session's active path) or abandoned (only those on its other real branches; artifacts are in neither)"`
	Sort      string   `json:"sort,omitempty" jsonschema:"recent (newest first) or relevance (BM25 over the newest 10,000 matches)"`
	Limit     int      `json:"limit,omitempty" jsonschema:"hits to answer (1 or more)"`
	Offset    int      `json:"offset,omitempty" jsonschema:"hits to skip (the next hits: offset plus the hits given)"`
	NoDedupe  bool     `json:"no-dedupe,omitempty" jsonschema:"answer every fork copy of an entry as its own hit (by default a hit names the other sessions that hold the same entry in also_in)"`
	Paging
}

func (s *Server) addSearchTool() error {
	if err := add(s, tool[SearchArgs]{
		name: "search",
		description: "Full-text search over every indexed coding-agent session (pi, Claude Code, Codex, plain JSONL), newest hits first: " +
			`{"hits":[{"session","id","role","type","timestamp","snippet","workspace","also_in":[session ids],"also_in_files","file","line","stale","open":{"path","messages"}}],"total","total_exact"}` +
			" (grove search --json). A hit's session and id (the entry found) are what path, messages and context take as session and leaf, to read the conversation up to it; the snippet marks matches with [[ ]]; stale marks a file changed since it was indexed (no snippet). limit and offset page through the hits as grove search's do." + pagingText,
		defaults: map[string]any{"branch": "all", "sort": "recent", "limit": archive.DefaultSearchLimit},
		more:     map[string]string{"role": "; grove's roles are " + strings.Join(archive.Roles, ", ")},
		asked:    func(in *SearchArgs) asked { return asked{session: in.Session} },
		build:    s.search,
	}); err != nil {
		return err
	}
	return nil
}

// search is grove search: the arguments checked as the command line
// checks its flags, then the search.
func (s *Server) search(ctx context.Context, a *archive.Archive, in *SearchArgs, _ *cursor) (*answer, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, usage("query: want something to look for (words, \"a phrase\", word*, an id)")
	}
	if err := checkDialect(in.Dialect); err != nil {
		return nil, err
	}
	o := archive.SearchOptions{Query: in.Query, Dialect: in.Dialect, Session: in.Session, Roles: cliutil.SplitList(in.Role), Types: cliutil.SplitList(in.Type),
		Sort: in.Sort, Limit: in.Limit, Offset: in.Offset, NoDedupe: in.NoDedupe}
	switch in.Branch {
	case "all":
	case "active":
		o.Active = true
	case "abandoned":
		o.Abandoned = true
	default:
		return nil, usage("branch: want active, abandoned or all, not %q", in.Branch)
	}
	if o.Sort != "recent" && o.Sort != "relevance" {
		return nil, usage("sort: want recent or relevance, not %q", o.Sort)
	}
	if o.Limit < 1 || o.Offset < 0 {
		return nil, usage("limit must be 1 or more and offset 0 or more, not %d and %d", o.Limit, o.Offset)
	}
	now := time.Now()
	for _, w := range []struct {
		name, value string
		to          **time.Time
	}{{"since", in.Since, &o.Since}, {"until", in.Until, &o.Until}} {
		if w.value != "" {
			t, err := archive.ParseWhen(w.value, now, w.name == "until")
			if err != nil {
				return nil, usage("%s: %v", w.name, err)
			}
			*w.to = &t
		}
	}
	if o.Since != nil && o.Until != nil && !o.Until.After(*o.Since) {
		return nil, usage("until (%s) is not after since (%s): nothing can match", o.Until.Format(time.RFC3339), o.Since.Format(time.RFC3339))
	}
	var err error
	if o.Workspace, err = workspace(ctx, a, in.Workspace); err != nil {
		return nil, err
	}
	doc, err := jsondoc.RunSearch(ctx, a, o, jsondoc.Opener{Grove: s.opts.Grove})
	var re *archive.RoleError
	if errors.As(err, &re) {
		return nil, usage("role: %v", re)
	}
	if err != nil {
		return nil, err
	}
	ans := &answer{doc: doc, paging: paging{members: []string{"hits"}, noun: "hit"}, notes: a.UnknownValues(ctx, o), snapshot: true}
	if res := doc.Result; res.TextPending {
		ans.notes = append(ans.notes, fmt.Sprintf("the search text of %s is not in the index yet: a first `grove index` is building it, or was stopped before it finished", plural.Count(res.Pending, "session", "sessions")))
	} else if res.Total == 0 {
		if n, err := a.CountSessions(ctx); err == nil && n == 0 {
			ans.notes = append(ans.notes, fmt.Sprintf("the index at %s holds no sessions yet: run `grove index`", s.opts.DB))
		}
	}
	return ans, nil
}
