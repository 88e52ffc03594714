package archive

import (
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// File is a session file read whole into memory (Load): the pure side
// that PathTo works on, and what `grove verify` compares the index with.
type File struct {
	Path          string
	ID            string // SPEC §3.3–3.6: the agent's SessionID
	Dialect       Dialect
	Header        *jsonl.Header // the pi or codex header; nil for the other dialects
	Workspace     string        // SPEC §3.3–3.6: the agent's Workspace
	Name          string        // the session's name (pi's session_info, Claude Code's titles, a sub-agent's description)
	ParentSession string        // the header's, or what the agent's metadata says
	Labels        map[string]string
	Entries       []FileEntry // committed entries in file order, each with Raw
	Result        *jsonl.Result
}

// Load reads the session file at path in salvage mode (SPEC §2.6): bad lines
// become diagnostics in Result.Errors and the good entries are kept. Its
// identity is what its dialect's agent says of it (SPEC §3.3–3.6): the
// id, the workspace from the header and the entries' facts, the name from
// the last session_info entry, then from the agent's metadata lines
// (MetaFacts), else its fallback (a Claude Code sub-agent's meta.json),
// and the parent session from the header, else the agent's metadata. It
// returns an error only when the file cannot be read.
func Load(path string) (*File, error) {
	entries, res, err := jsonl.ReadFile(path, jsonl.Salvage)
	if err != nil {
		return nil, err
	}
	var facts agent.Facts
	var labels map[string]string
	ids := make(map[string]bool, len(entries))
	for i := range entries {
		e := &entries[i]
		facts.Add(e)
		ids[e.ID] = true
		if e.Type == "label" && e.TargetID != "" {
			if labels == nil {
				labels = map[string]string{}
			}
			if e.Label == "" {
				delete(labels, e.TargetID) // an empty label clears (pi's rule)
			} else {
				labels[e.TargetID] = e.Label
			}
		}
	}
	a := agent.Of(res.Dialect)
	id := agent.Identity{Name: facts.Name}
	if res.Header != nil {
		id.ParentSession = res.Header.ParentSession
	}
	_ = a.MetaFacts(path, &id, res, func(x string) (bool, error) { return ids[x], nil }, nil) // no error without reread and with has never failing
	if id.Name == "" {
		id.Name = a.FallbackName(path)
	}
	return &File{
		Path: path, ID: a.SessionID(path, res.Header), Dialect: res.Dialect, Header: res.Header,
		Workspace: a.Workspace("", path, res.Header, &facts), Name: id.Name,
		ParentSession: id.ParentSession, Labels: labels,
		Entries: entries, Result: res,
	}, nil
}
