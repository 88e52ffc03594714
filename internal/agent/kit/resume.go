package kit

// ResumeAt is the point of a session an agent's own command is to go on
// from (SPEC §12 `grove resume`): the session, the entry, and what the
// command needs to know of both.
type ResumeAt struct {
	SessionID string // the session's id (SPEC §3.3–3.6)
	Path      string // the session file, absolute
	Workspace string // the directory the session worked in (SPEC §3.3)
	// Parent is the session this one was forked from or is a sub-agent of
	// (a file for pi, an id for Claude Code and Codex); "" for none.
	Parent string
	Child  string // what the session is under Parent (agent.ChildKind): "sub-agent", "fork", "child"; "" without a parent
	Leaf   string // the entry to go on from
	Active bool   // Leaf is the session's active leaf (SPEC §1)
	Side   bool   // Leaf is a sidechain entry (Claude Code, SPEC §3.4)
	// Prompt is the first message of the new branch, for an agent that
	// goes on from an earlier entry only when given one (Claude Code's
	// print mode); "" for none.
	Prompt string
	// NewID is a fresh UUID for a session the command makes (Claude
	// Code's --session-id), so that a second command can name it.
	NewID string
	// Plan asks what the command needs rather than for the command: an
	// agent that would refuse for want of a Prompt answers NeedsPrompt.
	Plan bool
}

// Resume is an agent's command that goes on from a ResumeAt, run in the
// session's workspace.
type Resume struct {
	Argv []string // the command, its program first; nil when no agent runs (File)
	// Then is a second command, run in the same directory once Argv has
	// succeeded (Claude Code: the interactive resume of the branch the
	// first one made); nil for none.
	Then []string
	// File is the session file itself, for a dialect no agent runs (a
	// messages log, a plain file): a person or program goes on by
	// appending to it. "" when Argv is set.
	File string
	// NeedsPrompt answers a ResumeAt with Plan set and no Prompt, when
	// the agent goes on from there only with a first message; Argv is nil.
	NeedsPrompt bool
}
