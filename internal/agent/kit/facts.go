package kit

import (
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/jsonl"
)

// Facts gathers, entry by entry in file order, what the entries of a
// session say about it, for the agent's identity rules to choose from
// (Agent.Workspace; the name, SPEC §3.2). A read that goes on from an
// earlier one gathers only the entries it reads.
type Facts struct {
	// Name is the trimmed name of the last session_info entry, a blank one
	// clearing it (pi's getSessionName, SPEC §3.2); HasName says one was
	// read.
	Name    string
	HasName bool
	// Cwd is the value of the last metadata entry of key "cwd" (the plain
	// workspace, SPEC §3.3); HasCwd says one was read.
	Cwd    string
	HasCwd bool
	// FirstCwd is the first non-empty cwd of an entry (the Claude Code
	// workspace, SPEC §3.4); "" until one is read.
	FirstCwd string
}

// Add takes the next entry in file order.
func (f *Facts) Add(e *jsonl.Entry) {
	if f.FirstCwd == "" {
		f.FirstCwd = e.Cwd
	}
	switch e.Type {
	case "metadata":
		if e.Key == "cwd" {
			f.Cwd, f.HasCwd = e.Value, true
		}
	case "session_info":
		f.Name, f.HasName = SessionName(e.Name), true
	}
}

// SessionName is a name as pi's getSessionName returns it: trimmed of
// JavaScript whitespace, "" (no name) when nothing is left (SPEC §3.2).
// Claude Code's titles and a sub-agent's description are trimmed alike.
func SessionName(name string) string {
	return strings.TrimFunc(name, JSSpace)
}

// JSSpace reports whether r is whitespace to JavaScript's String.trim and
// \s: Unicode space separators, tab, vertical tab, form feed, the BOM and
// the line terminators (not U+0085, which Go's unicode.IsSpace counts).
func JSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// StemID is a session's id from its header h (nil when it has none),
// else its file name without ".jsonl" (SPEC §3.3, §3.4, §3.6): pi's,
// plain's, the messages log's and Claude Code's rule (the name is what
// `claude --resume` takes).
func StemID(path string, h *jsonl.Header) string {
	if h != nil && h.ID != "" {
		return h.ID
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}
