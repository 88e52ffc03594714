package archive

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/grove-sessions/grove/jsonl"
)

// File is a session file read whole into memory (Load): the pure side
// that PathTo works on, and what `grove verify` compares the index with.
type File struct {
	Path          string
	ID            string // SPEC §3.3–3.6: see SessionID
	Dialect       Dialect
	Header        *jsonl.Header // the pi or codex header; nil for the other dialects
	Workspace     string        // SPEC §3.3–3.6: see Facts.Workspace
	Name          string        // see Facts.SessionName
	ParentSession string        // see Facts.ParentSession
	Labels        map[string]string
	Entries       []FileEntry // committed entries in file order, each with Raw
	Result        *jsonl.Result
}

// Load reads the session file at path in salvage mode (SPEC §2.6): bad lines
// become diagnostics in Result.Errors and the good entries are kept. It
// returns an error only when the file cannot be read.
func Load(path string) (*File, error) {
	entries, res, err := jsonl.ReadFile(path, jsonl.Salvage)
	if err != nil {
		return nil, err
	}
	var facts Facts
	ids := make(map[string]bool, len(entries))
	for i := range entries {
		facts.Add(&entries[i])
		ids[entries[i].ID] = true
	}
	name, _ := facts.SessionName(res.Claude, func(id string) bool { return ids[id] })
	if name == "" && res.Dialect == jsonl.Claude {
		name = SubagentName(path) // a sub-agent's meta.json description
	}
	return &File{
		Path: path, ID: SessionID(path, res.Dialect, res.Header), Dialect: res.Dialect, Header: res.Header,
		Workspace: facts.Workspace(path, res.Dialect, res.Header), Name: name,
		ParentSession: ParentSession(path, res.Dialect, res.Header, res.Claude), Labels: facts.Labels,
		Entries: entries, Result: res,
	}, nil
}

// uuidTail matches a UUID at the end of a Codex rollout's file stem.
var uuidTail = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// SessionID is a session's id: the pi header id (SPEC §3.3); the Codex
// header's payload.id, else the UUID at the end of the file name (SPEC §3.5,
// FORMATS.md §2.3); for every other file, or a header without an id, the
// file name without ".jsonl" (plain, messages, claude: what
// `claude --resume` takes).
func SessionID(path string, d Dialect, h *jsonl.Header) string {
	if h != nil && h.ID != "" {
		return h.ID
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if d == jsonl.Codex {
		if u := uuidTail.FindString(stem); u != "" {
			return u
		}
	}
	return stem
}

// ParentSession is the session a session was forked or spawned from, ""
// when none: the pi header's parentSession; the Codex header's
// forked_from_id or spawning thread; for a Claude Code file whose
// sessionId field is not its own name (a sub-agent file), that sessionId
// (SPEC §3.4).
func ParentSession(path string, d Dialect, h *jsonl.Header, m *jsonl.ClaudeMeta) string {
	switch {
	case h != nil:
		return h.ParentSession
	case d == jsonl.Claude && m != nil && m.SessionID != "" && m.SessionID != SessionID(path, d, nil):
		return m.SessionID
	}
	return ""
}

// Facts gathers, entry by entry in file order, what a session says about
// itself: the plain and claude workspace, pi's session name and labels.
type Facts struct {
	Name     string            // the trimmed name of the last session_info entry; a blank one clears it (pi's getSessionName, SPEC §3.2)
	Labels   map[string]string // target id -> label; the last label line for a target wins, an empty one clears
	cwd      string            // plain: value of the last metadata "cwd"
	hasCwd   bool
	firstCwd string // claude: the first non-empty cwd of an entry
}

// Add takes the next entry in file order.
func (f *Facts) Add(e *FileEntry) {
	if f.firstCwd == "" {
		f.firstCwd = e.Cwd
	}
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

// Workspace is the session's workspace: the pi or Codex header's cwd
// (SPEC §3.3, §3.5); for a plain file the last metadata "cwd" value, else
// ""; for a claude file the first non-empty cwd of an entry (§3.4); for a
// messages log the absolute path of the folder holding it (§3.6).
func (f *Facts) Workspace(path string, d Dialect, h *jsonl.Header) string {
	switch {
	case h != nil:
		return h.Cwd
	case d == jsonl.Claude:
		return f.firstCwd
	case d == jsonl.Messages:
		return MessagesWorkspace(path)
	}
	return f.cwd
}

// MessagesWorkspace is a messages log's workspace (SPEC §3.6): the
// absolute path of the folder that holds it.
func MessagesWorkspace(path string) string {
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// SessionName is the session's name: pi's getSessionName (Facts.Name,
// SPEC §3.2), or for a claude file (m non-nil) the last custom-title (the
// user's /rename), else the last ai-title, else the text of the last
// summary line whose leafUuid is an entry of this session, as has tells
// (FORMATS.md §1.5); each trimmed, a blank one passed over. ok is false
// when a claude file names itself nowhere.
func (f *Facts) SessionName(m *jsonl.ClaudeMeta, has func(id string) bool) (name string, ok bool) {
	if m == nil {
		return f.Name, true
	}
	return ClaudeName(m, has)
}

// ClaudeName is the name of a claude session from what its lines say (see
// Facts.SessionName).
func ClaudeName(m *jsonl.ClaudeMeta, has func(id string) bool) (string, bool) {
	for _, t := range []*string{m.CustomTitle, m.AITitle} {
		if t != nil {
			if n := sessionName(*t); n != "" {
				return n, true
			}
		}
	}
	for i := len(m.Summaries) - 1; i >= 0; i-- {
		if s := m.Summaries[i]; has(s.LeafUUID) {
			if n := sessionName(s.Text); n != "" {
				return n, true
			}
		}
	}
	return "", false
}
