package jsondoc

import (
	"context"

	"github.com/grove-sessions/grove/archive"
)

// Hit is one hit of `grove search --json` (SPEC §8): the session and the
// entry it found (ID, which is also the LEAF to give path, messages or
// context for the conversation up to it), where, a snippet, and the
// commands that open it.
type Hit struct {
	Session   string            `json:"session"`
	ID        string            `json:"id"`
	Role      any               `json:"role"`
	Type      string            `json:"type"`
	Timestamp any               `json:"timestamp"`
	Snippet   string            `json:"snippet"`
	Workspace string            `json:"workspace"`
	AlsoIn    []string          `json:"also_in"`
	AlsoFiles []string          `json:"also_in_files"` // the files of also_in, in order: ids can be shared
	File      string            `json:"file"`
	Line      int               `json:"line,omitempty"`
	Stale     bool              `json:"stale,omitempty"`  // the file changed since indexing: no snippet; run grove index
	Edited    string            `json:"edited,omitempty"` // "replaced" or "removed": a context edit on the active path changed what the model sees of it
	Open      map[string]string `json:"open"`
	// Branch, Leaves and LeavesTotal place an entry hit in its session's
	// tree (archive.Hit); a session hit has none of them.
	Branch      string    `json:"branch,omitempty"`
	Artifact    string    `json:"artifact,omitempty"` // an artifact's kind: parallel, progress, replay or command
	Leaves      *[]string `json:"leaves,omitempty"`
	LeavesTotal *int      `json:"leaves_total,omitempty"`
}

// Search is `grove search --json`: {"hits","text_pending","total",
// "total_exact"}, members in that order (the command line has always
// written them from a map); text_pending, the sessions whose search text
// is still being built, only when there are any.
type Search struct {
	Hits        []Hit                 `json:"hits"`
	TextPending *int                  `json:"text_pending,omitempty"`
	Total       int                   `json:"total"`
	TotalExact  bool                  `json:"total_exact"`
	Result      *archive.SearchResult `json:"-"` // the archive's answer the document is made of
}

// SearchOf is the document of res, each hit's open commands made by op.
func SearchOf(res *archive.SearchResult, op Opener) *Search {
	doc := &Search{Hits: []Hit{}, Total: res.Total, TotalExact: res.Exact, Result: res}
	for _, h := range res.Hits {
		j := Hit{Session: h.SessionID, ID: h.EntryID, Type: h.Type, Timestamp: Time(h.TsMs),
			Snippet: h.Snippet, Workspace: h.Workspace, AlsoIn: h.AlsoIn, File: h.Path, Line: h.Line, Stale: h.Stale,
			Edited: h.Edited, Open: op.Open(h)}
		if h.Role != nil {
			j.Role = *h.Role
		}
		j.AlsoFiles = h.AlsoInFiles
		if h.Branch != "" {
			leaves, total := h.Leaves, h.LeavesTotal
			if leaves == nil {
				leaves = []string{}
			}
			j.Branch, j.Artifact, j.Leaves, j.LeavesTotal = h.Branch, h.Artifact, &leaves, &total
		}
		if j.AlsoIn == nil {
			j.AlsoIn, j.AlsoFiles = []string{}, []string{}
		}
		doc.Hits = append(doc.Hits, j)
	}
	if res.TextPending {
		n := res.Pending
		doc.TextPending = &n
	}
	return doc
}

// RunSearch is `grove search` with o (its Workspace already a filter):
// the roles are checked first (Archive.CheckRoles: a *archive.RoleError
// for a role grove has no name for and no entry has), then the search
// runs. Errors: those two's (bad_query for a query with nothing to look
// for).
func RunSearch(ctx context.Context, a *archive.Archive, o archive.SearchOptions, op Opener) (*Search, error) {
	if err := a.CheckRoles(ctx, o.Roles); err != nil {
		return nil, err
	}
	res, err := a.Search(ctx, o)
	if err != nil {
		return nil, err
	}
	return SearchOf(res, op), nil
}

// Opener writes the commands that show a hit in its session, starting
// with Grove: "grove", or "grove --db INDEX" when the index is not the one
// a plain `grove` opens. A session whose id is not unique is named by its
// file.
type Opener struct{ Grove string }

// Open is {"path": "grove path S E", "messages": "grove messages S E"} for
// h, its values quoted for a POSIX shell.
func (op Opener) Open(h archive.Hit) map[string]string {
	s := archive.ShellQuote(h.SessionID)
	if h.AmbiguousID {
		s = archive.ShellQuote(h.Path)
	}
	if h.OpenSource != "" {
		s = "--source " + archive.ShellQuote(h.OpenSource) + " " + s
	}
	if h.EntryID == "" {
		return map[string]string{"path": op.Grove + " path " + s, "messages": op.Grove + " messages " + s}
	}
	id := archive.ShellQuote(h.EntryID)
	return map[string]string{"path": op.Grove + " path " + s + " " + id, "messages": op.Grove + " messages " + s + " " + id}
}
