package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/internal/kept"
	"github.com/grove-sessions/grove/internal/plural"
	"github.com/grove-sessions/grove/jsonl"
)

// MarkOpen and MarkClose enclose each matched term in a Hit's Snippet.
const (
	MarkOpen  = index.MarkOpen
	MarkClose = index.MarkClose
)

// SearchOptions are `grove search`'s query and filters (SPEC §8).
type SearchOptions struct {
	Query     string
	Workspace string // a clean absolute directory (WorkspaceDir): its sessions and those under it (SPEC §3.3)
	Session   string // a session id, unique id prefix or file path
	Dialect   string // only sessions of this dialect (SPEC §3); "" means all
	Roles     []string
	Types     []string
	Since     *time.Time
	Until     *time.Time
	Active    bool   // --branch active: only entries on their session's active path
	Abandoned bool   // --branch abandoned: only entries off it on real branches (SPEC §4.2)
	Sort      string // "recent" (default) or "relevance"
	Limit     int    // hits to return; 0 means DefaultSearchLimit
	Offset    int    // hits to skip
	NoDedupe  bool
	// NoSnippets leaves every entry hit's Snippet empty: no line is read
	// back from its session file (grove pick, which lists sessions as
	// they are typed for).
	NoSnippets bool
	// EntriesOnly gives entry hits only: no session hit for a query that
	// is a session id or matches a session's name (grove pick matches
	// names and ids itself; finding the named sessions reads every one).
	EntriesOnly bool
}

// Branch values of a Hit (SPEC §4.2).
const (
	BranchActive    = "active"
	BranchAbandoned = "abandoned"
	BranchArtifact  = "artifact"
	BranchSubAgent  = "sub-agent"
)

// HitLeaves is how many of the leaves an entry reaches a Hit names: a hit
// near the root of a session of many retries reaches every one of them.
const HitLeaves = 10

// DefaultSearchLimit is how many hits Search returns when
// SearchOptions.Limit is 0: `grove search --limit`'s default (SPEC §8).
const DefaultSearchLimit = 20

// Hit is one hit of `grove search` with its snippet (SPEC §7, §8): an
// entry, or a session itself (Type "session") when the query is its id or
// matches its name.
type Hit struct {
	// Entry is the hit's entry. A session hit has only Type "session",
	// EntryID (its active leaf, "" for none) and TsMs (its modification).
	Entry
	SessionID string
	Workspace string
	Path      string  // the session file
	Score     float64 // the full-text rank the index gave the hit (--sort relevance); 0 for a session hit
	// AlsoIn lists the ids of the other sessions that hold a byte-identical
	// copy of the entry (pi copies the path of a session into a forked
	// one); AlsoInFiles their files, in the same order. Empty with
	// NoDedupe.
	AlsoIn      []string
	AlsoInFiles []string
	// ByID is set when the hit was found because the query is its entry id
	// or a unique prefix of it, not by its text.
	ByID bool
	// AmbiguousID is set when another indexed session has the same session
	// id, so that only the file path names this one.
	AmbiguousID bool
	// OpenSource is the hit's source when not even its path names it: in a
	// team's index (SPEC §10) another source has a file at that path too,
	// and `--source OpenSource` picks this one. "" otherwise.
	OpenSource string
	// Snippet is the hit's text around the match, terms marked with
	// MarkOpen and MarkClose. For a session hit it is the
	// session's name or workspace.
	Snippet string
	// Stale is set when the session file changed since it was indexed: the
	// snippet could not be read back.
	Stale bool
	// Damaged is set with Stale when what could not be read back is a
	// gone session's kept copy, damaged on disk (kept.ErrCorrupt): running
	// grove index cannot help (docs/keeping.md).
	Damaged bool
	// Edited is EditReplaced or EditRemoved when a context edit on the
	// session's active path changed what the model sees of the entry there
	// (pi 1.x's context_edit, SPEC §4.1): the hit's text is no longer what
	// the model sees. "" otherwise.
	Edited string
	// Branch is where the entry lies in its session's tree (SPEC §4.2):
	// BranchActive on the path to the session's active leaf, as `leaves`
	// and --branch active see it; BranchArtifact when a child of another
	// kind than branch lies on the path from its root to it (Artifact
	// names that kind: parallel, progress, replay or command); else
	// BranchSubAgent for an entry of an inline sub-agent run (a sidechain
	// entry of a session whose active leaf is on the main chain, SPEC
	// §3.4); else BranchAbandoned, on another real branch. "" for a session
	// hit.
	Branch   string
	Artifact string
	// Leaves are the ids of the real leaves whose paths hold the entry
	// (SPEC §4, §4.2; index.DB.LeavesThrough), in file order, the first
	// HitLeaves of them; LeavesTotal counts them all. None for a session
	// hit, for an artifact, or when the path to the entry is broken (a
	// missing parent, a cycle, a duplicated id).
	Leaves      []string
	LeavesTotal int

	sid     int64  // the session's row
	active  bool   // the entry is on its session's active path
	dialect string // the session's
	source  string // the session's source (SPEC §10)
}

// hitOf is the caller's view of an index hit, without its snippet.
func hitOf(h *index.Hit) Hit {
	return Hit{Entry: entryOf(h.Entry), SessionID: h.SessionID, Workspace: h.Workspace, Path: h.Path, Score: h.Score,
		AlsoIn: h.AlsoIn, AlsoInFiles: h.AlsoInFiles, ByID: h.ByID, AmbiguousID: h.AmbiguousID,
		sid: h.SID, active: h.Active, dialect: h.Dialect, source: h.Source}
}

// SearchResult is a page of hits and the total (see index.SearchResult).
type SearchResult struct {
	Hits  []Hit
	Total int
	Exact bool
	// TextPending is set while the first `grove index` of an empty index is
	// still building the search text of the sessions it has listed (the
	// listings answer first): none of their entries is found yet, and
	// Pending counts those sessions.
	TextPending bool
	Pending     int
}

// Search runs a query over the index and reads each hit's line back from
// its session file for the snippet; a hit whose text a context edit on
// its session's active path replaced or removed says so (Hit.Edited).
// Errors: bad_query for a query
// index.ParseQuery refuses, unknown_session or ambiguous_session for
// Session, and SQLite's.
func (a *Archive) Search(ctx context.Context, o SearchOptions) (*SearchResult, error) {
	q, err := index.ParseQuery(o.Query)
	if err != nil {
		return nil, err
	}
	limit := cmpOr(o.Limit, DefaultSearchLimit)
	p := index.SearchParams{Query: q, Workspace: o.Workspace, Dialect: o.Dialect, Roles: o.Roles, Types: o.Types,
		Active: o.Active, Abandoned: o.Abandoned, Relevance: o.Sort == "relevance", Limit: limit, Offset: o.Offset, NoDedupe: o.NoDedupe, Source: a.readSource()}
	if o.Since != nil {
		ms := o.Since.UnixMilli()
		p.Since = &ms
	}
	if o.Until != nil {
		ms := o.Until.UnixMilli()
		p.Until = &ms
	}
	var sessionHits []Hit
	if o.Session != "" {
		s, err := a.resolve(ctx, o.Session)
		if err != nil {
			return nil, err
		}
		p.SIDs = []int64{s.SID}
	}
	if q.IDLike != "" && len(o.Roles) == 0 && len(o.Types) == 0 && !o.EntriesOnly && !o.Abandoned {
		// A session id that several files share (copies of one file)
		// finds each of them; a prefix finds sessions only when it names
		// one session id.
		if ss, err := a.db().SessionsByIDPrefix(ctx, q.IDLike); err == nil && oneSessionID(ss) {
			for i := range ss {
				if sessionPasses(&ss[i], &p) {
					h := sessionHit(&ss[i])
					h.AmbiguousID = len(ss) > 1 // only its file names it
					sessionHits = append(sessionHits, h)
				}
			}
		}
	}
	found := map[int64]bool{}
	for _, h := range sessionHits {
		found[h.sid] = true
	}
	// A session whose agent names it by lines that are no entries (Claude
	// Code's custom-title, ai-title, summary; a sub-agent's meta.json) is
	// found by a query its name matches (SPEC §7: session names;
	// FORMATS.md §4: title metadata).
	if len(o.Roles) == 0 && len(o.Types) == 0 && !o.Active && !o.EntriesOnly && !o.Abandoned {
		for _, ag := range agent.All {
			d := string(ag.Dialect())
			if !ag.Traits().NamedByMetadata || o.Dialect != "" && o.Dialect != d {
				continue
			}
			named, err := a.db().Sessions(ctx, index.SessionFilter{Dialect: d, Named: true, Source: p.Source})
			if err != nil {
				return nil, err
			}
			for i := range named {
				s := &named[i]
				if s.Name == "" || !q.Matches(s.Name) || !sessionPasses(s, &p) || found[s.SID] {
					continue
				}
				found[s.SID] = true
				h := sessionHit(s)
				h.Snippet = "session " + s.SessionID + " named " + index.Snippet(s.Name, q.Terms())
				sessionHits = append(sessionHits, h)
			}
		}
	}
	// Session hits are the first hits of every page sequence: they count
	// in the total of every page, and move the entry hits on.
	n := len(sessionHits)
	if o.Offset > 0 {
		skip := min(o.Offset, n)
		p.Offset, sessionHits = o.Offset-skip, sessionHits[skip:]
	}
	res, err := a.db().Search(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &SearchResult{Total: res.Total + n, Exact: res.Exact, Hits: sessionHits}
	if pending, err := a.db().TextPending(ctx); err == nil && pending {
		out.TextPending = true
		out.Pending, _ = a.db().CountSessions(ctx)
	}
	files := map[[2]string]SessionFile{} // nil for a file that cannot be opened
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	terms := q.Terms()
	reach := map[int64]*index.Reach{} // by session row, read once per Search
	for _, h := range res.Hits {
		sh := hitOf(&h)
		if h.AmbiguousID && a.db().IsServer() {
			if at, err := a.db().SessionsAtPath(ctx, h.Path); err == nil && len(at) > 1 {
				sh.OpenSource = h.Source
			}
		}
		if o.NoSnippets {
			out.Hits = append(out.Hits, sh)
			continue
		}
		if err := a.placeHit(ctx, reach, &sh, &h); err != nil {
			return nil, err
		}
		line, err := a.readHitLine(files, &h)
		if err != nil {
			sh.Stale, sh.Damaged = true, errors.Is(err, kept.ErrCorrupt)
		} else {
			e := jsonl.Entry{Type: h.Type, Raw: line}
			if h.Role != nil {
				e.Role = *h.Role
			}
			sh.Snippet = index.Snippet(string(agent.Of(Dialect(h.Dialect)).AppendSearchText(nil, &e)), terms)
			if sh.Snippet == "" {
				sh.Snippet = "(no text: " + h.Type + " entry)"
			}
			if h.ByID {
				sh.Snippet = "entry id " + index.MarkOpen + h.EntryID + index.MarkClose + " · " + sh.Snippet
			}
		}
		out.Hits = append(out.Hits, sh)
	}
	if len(out.Hits) > limit {
		out.Hits = out.Hits[:limit]
	}
	if err := a.markEdits(ctx, out.Hits); err != nil {
		return nil, err
	}
	return out, nil
}

// placeHit sets sh's Branch and Leaves from the index: its entry's active
// mark and stored path kind, and the real leaves below it
// (index.Reach.LeavesThrough, the session's runs read once per Search
// into reach).
func (a *Archive) placeHit(ctx context.Context, reach map[int64]*index.Reach, sh *Hit, h *index.Hit) error {
	kind, err := a.db().PathKindOf(ctx, h.SID, h.Seq)
	if err != nil {
		return err
	}
	if !h.Active && h.Dialect == string(Claude) {
		// An entry of an inline sub-agent run (SPEC §3.4): neither on the
		// conversation's active path nor a branch a person made.
		run, err := a.db().InRun(ctx, h.SID, h.EntryID)
		if err != nil {
			return err
		}
		if run {
			sh.Branch = BranchSubAgent
			return nil
		}
	}
	switch {
	case h.Active:
		sh.Branch = BranchActive
	case kind != nil:
		sh.Branch, sh.Artifact = BranchArtifact, *kind
		return nil // no real leaf lies below an artifact
	default:
		sh.Branch = BranchAbandoned
	}
	r, ok := reach[h.SID]
	if !ok {
		if r, err = a.db().ReachOf(ctx, h.SID); err != nil {
			return err
		}
		reach[h.SID] = r
	}
	leaves, err := r.LeavesThrough(ctx, h.EntryID)
	if err != nil {
		return err
	}
	for _, l := range leaves {
		if l.PathKind != nil {
			continue // an artifact leaf (SPEC §4.2)
		}
		if sh.LeavesTotal++; len(sh.Leaves) < HitLeaves {
			sh.Leaves = append(sh.Leaves, l.EntryID)
		}
	}
	return nil
}

// UnknownValues returns a warning for each --role or --type value of o that
// no indexed entry has: a search that found nothing because of a typo
// ("Message" for "message") should say so. A role grove has no name for
// is refused before (CheckRoles); one it has may still be in no entry.
func (a *Archive) UnknownValues(ctx context.Context, o SearchOptions) []string {
	var out []string
	for _, v := range o.Roles {
		if ok, err := a.db().HasValue(ctx, "role", v); err == nil && !ok {
			out = append(out, fmt.Sprintf("no indexed entry has role %q", v))
		}
	}
	for _, v := range o.Types {
		if ok, err := a.db().HasValue(ctx, "type", v); err == nil && !ok {
			out = append(out, fmt.Sprintf("no indexed entry has type %q (types are case-sensitive: message, compaction, branch_summary, label, response_item, ...)", v))
		}
	}
	return out
}

// Roles are the roles grove's dialects give entries by name (jsonl.Roles).
var Roles = jsonl.Roles

// RoleError is CheckRoles' refusal of a role: grove's dialects give no
// such role and no indexed entry has it (a wrong command line, SPEC §8).
type RoleError struct {
	Role string // the role asked for
	Like string // the role of Roles it differs from in case only; "" when none
}

func (e *RoleError) Error() string {
	if e.Like != "" {
		return fmt.Sprintf("no role %q: roles are case-sensitive; did you mean %q?", e.Role, e.Like)
	}
	return fmt.Sprintf("no role %q: grove's roles are %s, and any other an indexed entry has (grove tree shows each entry's)", e.Role, strings.Join(Roles, ", "))
}

// CheckRoles returns a *RoleError for the first of roles that is none of
// Roles and that no indexed entry has: "User" and "bogus" are refused
// rather than answered with no hits. A role that differs from one of
// Roles in case only is refused too, naming that one; grove does not
// take it for it, as a role is matched exactly everywhere else. Other
// errors are the index's.
func (a *Archive) CheckRoles(ctx context.Context, roles []string) error {
	for _, r := range roles {
		if slices.Contains(Roles, r) {
			continue
		}
		ok, err := a.db().HasValue(ctx, "role", r)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		e := &RoleError{Role: r}
		for _, k := range Roles {
			if strings.EqualFold(k, r) {
				e.Like = k
			}
		}
		return e
	}
	return nil
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func (a *Archive) readHitLine(files map[[2]string]SessionFile, h *index.Hit) ([]byte, error) {
	key := [2]string{h.Source, h.Path}
	f, ok := files[key]
	if !ok {
		var err error
		if f, err = a.openRow(&index.Session{Source: h.Source, Path: h.Path}); err != nil {
			// A file gone: its kept copy (SPEC §11), when there is one,
			// holds the bytes the index's rows were read from (readRow
			// checks each line's CRC-32 all the same).
			k, kerr := a.openKept(h.Source, h.Path)
			if kerr != nil {
				files[key] = nil
				return nil, err
			}
			f = k
		}
		files[key] = f
	}
	if f == nil {
		return nil, os.ErrNotExist
	}
	return readRow(f, h.Path, h.Entry)
}

// sessionPasses applies the session-level filters of p to s.
func sessionPasses(s *index.Session, p *index.SearchParams) bool {
	if !index.UnderWorkspace(s.Workspace, p.Workspace) {
		return false
	}
	if len(p.SIDs) > 0 && p.SIDs[0] != s.SID || p.Dialect != "" && s.Dialect != p.Dialect || p.Source != "" && s.Source != p.Source {
		return false
	}
	t := s.ModifiedMs
	return t == nil || ((p.Since == nil || *t >= *p.Since) && (p.Until == nil || *t < *p.Until))
}

// SharedSessionIDs is the set of the ids of ids that more than one
// indexed session holds (copies of one file): a listing names those
// sessions by their files.
func (a *Archive) SharedSessionIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	return a.db().SharedSessionIDs(ctx, ids)
}

// oneSessionID reports whether ss is not empty and all of it has one
// session id.
func oneSessionID(ss []index.Session) bool {
	for i := range ss {
		if ss[i].SessionID != ss[0].SessionID {
			return false
		}
	}
	return len(ss) > 0
}

func sessionHit(s *index.Session) Hit {
	h := Hit{sid: s.SID, SessionID: s.SessionID, Workspace: s.Workspace, Path: s.Path, AlsoIn: []string{}, AlsoInFiles: []string{}}
	h.Type = "session"
	if s.ActiveLeaf != nil {
		h.EntryID = *s.ActiveLeaf
	}
	h.TsMs = s.ModifiedMs
	h.Snippet = fmt.Sprintf("session %s%s: %s, %s", s.SessionID, nameSuffix(s.Name), plural.Count(s.Entries, "entry", "entries"), plural.Count(s.Leaves, "leaf", "leaves"))
	return h
}

func nameSuffix(name string) string {
	if name == "" {
		return ""
	}
	return " “" + name + "”"
}

var spanRE = regexp.MustCompile(`^(\d+)(s|m|h|d|w)$`)

// ParseWhen reads a --since/--until value: a date (2026-01-05, local
// midnight), an RFC 3339 time, or a span back from now (90s, 30m, 12h, 7d,
// 2w). For --until a date means the end of that day (endOfDay), so
// `--until 2026-01-05` includes the 5th.
func ParseWhen(s string, now time.Time, endOfDay bool) (time.Time, error) {
	if m := spanRE.FindStringSubmatch(s); m != nil {
		unit := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n > int64(100*365*24*time.Hour/unit) {
			return time.Time{}, fmt.Errorf("%q is longer than 100 years back; give a date instead", s)
		}
		return now.Add(-time.Duration(n) * unit), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, now.Location()); err == nil {
		if endOfDay {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-01-05), an RFC 3339 time (2026-01-05T14:00:00Z) or a span back from now (30m, 12h, 7d, 2w)", s)
}
