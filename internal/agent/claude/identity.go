package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// MetaFacts completes id from the metadata lines a read found (res.Claude,
// SPEC §3.4): a session whose sessionId field is not its own name (a
// sub-agent file) has that session as its parent, when id has none yet;
// its name is the last custom-title (the user's /rename), else the last
// ai-title, else the text of the last summary line whose leafUuid is an
// entry of the session, as has tells (FORMATS.md §1.5), each trimmed, a
// blank one passed over; when they name it nowhere and id has no name,
// a sub-agent's meta.json description (SubagentName). A read that went on
// from an earlier one (reread not nil) reads the whole file's titles
// again, as a later ai-title must not override an earlier custom-title (a
// rare, small read: titles are written a few times per session). A read
// that found no Claude line changes nothing. Errors: those of reread and
// has.
func (Agent) MetaFacts(path string, id *kit.Identity, res *jsonl.Result, has func(string) (bool, error), reread func() (*jsonl.Result, error)) error {
	m := res.Claude
	if m == nil {
		return nil
	}
	if id.ParentSession == "" {
		id.ParentSession = parentSession(path, m)
	}
	if m.CustomTitle == nil && m.AITitle == nil && len(m.Summaries) == 0 {
		if id.Name == "" {
			id.Name = SubagentName(path)
		}
		return nil
	}
	if reread != nil {
		whole, err := reread()
		if err != nil {
			return err
		}
		if whole.Claude != nil {
			m = whole.Claude
		}
	}
	var lookupErr error
	name, ok := Name(m, func(id string) bool {
		found, err := has(id)
		if err != nil && lookupErr == nil {
			lookupErr = err
		}
		return found
	})
	if lookupErr != nil {
		return lookupErr
	}
	switch {
	case ok:
		id.Name = name
	case id.Name == "":
		id.Name = SubagentName(path)
	}
	return nil
}

// parentSession is the session a Claude Code file at path was spawned
// from: its first sessionId field when that is not the file's own name
// (a sub-agent file, SPEC §3.4), else "".
func parentSession(path string, m *jsonl.ClaudeMeta) string {
	if m.SessionID != "" && m.SessionID != kit.StemID(path, nil) {
		return m.SessionID
	}
	return ""
}

// Name is the name of a Claude Code session from what its lines say (see
// MetaFacts); ok is false when they name it nowhere.
func Name(m *jsonl.ClaudeMeta, has func(id string) bool) (string, bool) {
	for _, t := range []*string{m.CustomTitle, m.AITitle} {
		if t != nil {
			if n := kit.SessionName(*t); n != "" {
				return n, true
			}
		}
	}
	for i := len(m.Summaries) - 1; i >= 0; i-- {
		if s := m.Summaries[i]; has(s.LeafUUID) {
			if n := kit.SessionName(s.Text); n != "" {
				return n, true
			}
		}
	}
	return "", false
}

// subagentFile matches the name of a Claude Code sub-agent transcript
// (FORMATS.md §1.1: 2.0.x agent-<8 hex>.jsonl beside the sessions, 2.1.x
// <session>/subagents/agent-<id>.jsonl).
var subagentFile = regexp.MustCompile(`^agent-([A-Za-z0-9_-]+)\.jsonl$`)

// SubagentName is the name a Claude Code sub-agent session takes from the
// agent-<id>.meta.json beside its file (2.1.x, FORMATS.md §1.1:
// {agentType, description, ...}): the description, else the agent type,
// trimmed; "" when path is no sub-agent file, there is no meta file, or it
// is not such an object. It never fails: the meta file is a hint, and a
// title line of the session itself wins over it (MetaFacts). Discovery
// never lists the meta file as a session.
func SubagentName(path string) string {
	m := subagentFile.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(path), "agent-"+m[1]+".meta.json"))
	if err != nil || len(data) > 1<<20 {
		return ""
	}
	var meta struct {
		Description any `json:"description"`
		AgentType   any `json:"agentType"`
	}
	if json.Unmarshal(data, &meta) != nil {
		return ""
	}
	for _, v := range []any{meta.Description, meta.AgentType} {
		if s, ok := v.(string); ok {
			if s = kit.SessionName(s); s != "" {
				return s
			}
		}
	}
	return ""
}
