package archive

import (
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/jsonl"
)

// Session is a session file read whole into memory: the pure side that
// PathTo works on, and what `grove verify` compares the index with.
type Session struct {
	Path      string
	ID        string // SPEC §3.3
	Dialect   jsonl.Dialect
	Header    *jsonl.Header // nil for plain files
	Workspace string        // SPEC §3.3
	Name      string        // pi's getSessionName (SPEC §3.2): see Facts.Name
	Labels    map[string]string
	Entries   []jsonl.Entry // committed entries in file order, each with Raw
	Result    *jsonl.Result
}

// Load reads the session file at path in salvage mode (SPEC §2.6): bad lines
// become diagnostics in Result.Errors and the good entries are kept. It
// returns an error only when the file cannot be read.
func Load(path string) (*Session, error) {
	entries, res, err := jsonl.ReadFile(path, jsonl.Salvage)
	if err != nil {
		return nil, err
	}
	var facts Facts
	for i := range entries {
		facts.Add(&entries[i])
	}
	return &Session{
		Path: path, ID: SessionID(path, res.Header), Dialect: res.Dialect, Header: res.Header,
		Workspace: facts.Workspace(res.Header), Name: facts.Name, Labels: facts.Labels,
		Entries: entries, Result: res,
	}, nil
}

// SessionID is a session's id (SPEC §3.3): the pi header id, or for a plain
// file (or a pi file without a readable header) the file name without
// ".jsonl".
func SessionID(path string, h *jsonl.Header) string {
	if h != nil && h.ID != "" {
		return h.ID
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}

// Facts gathers, entry by entry in file order, what a session says about
// itself: the plain workspace, pi's session name and labels.
type Facts struct {
	Name   string            // the trimmed name of the last session_info entry; a blank one clears it (pi's getSessionName, SPEC §3.2)
	Labels map[string]string // target id -> label; the last label line for a target wins, an empty one clears
	cwd    string            // plain: value of the last metadata "cwd"
	hasCwd bool
}

// Add takes the next entry in file order.
func (f *Facts) Add(e *jsonl.Entry) {
	switch e.Type {
	case "metadata":
		if e.Key == "cwd" {
			f.cwd, f.hasCwd = e.Value, true
		}
	case "session_info":
		f.Name = sessionName(e.Name)
	case "label":
		if e.TargetID == "" {
			return
		}
		if f.Labels == nil {
			f.Labels = map[string]string{}
		}
		if e.Label == "" {
			delete(f.Labels, e.TargetID)
		} else {
			f.Labels[e.TargetID] = e.Label
		}
	}
}

// Workspace is the session's workspace (SPEC §3.3): the pi header's cwd, or
// for a plain file the last metadata "cwd" value, else "".
func (f *Facts) Workspace(h *jsonl.Header) string {
	if h != nil {
		return h.Cwd
	}
	return f.cwd
}
