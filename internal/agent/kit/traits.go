package kit

import "github.com/grove-sessions/grove/jsonl"

// Traits are an agent's rules that code outside its folder applies as
// data: the index's SQL, the tree rules, the ingest's reader, the command
// line. Each field says which SPEC section it comes from; the zero value
// is the plain dialect's rule.
type Traits struct {
	// ActiveLeaf is how the active leaf is chosen (SPEC §1, §3.4).
	ActiveLeaf LeafRule
	// Copies is what makes an entry of another session a copy of an entry
	// (search's also_in, SPEC §8), with the CopyCRC of jsonl.Rules.
	Copies CopyRule
	// Chain: every entry's parent is the entry before it and its id is
	// L<line> (SPEC §3.5, §3.6), so the active leaf is the last entry and a
	// read resumed after it goes on from it (jsonl.Resume.Prev).
	Chain bool
	// TurnStarts are the entries whose offset a read resumed inside a turn
	// needs, to pair an event with the lines of its turn (Codex,
	// jsonl/codex_pair.go); nil when the reader pairs nothing.
	TurnStarts []jsonl.EntryKind
	// Form is what the messages of its contexts are (SPEC §4.1).
	Form Form
	// ModifiedByEntryTime: a session with no message activity and no
	// header time is as recent as its latest entry; false is pi's
	// /resume order, header time else the file's mtime (SPEC §3.2).
	ModifiedByEntryTime bool
	// NamedByMetadata: the session's name comes from lines that are no
	// entries (Claude Code's titles, SPEC §3.4), so a search its name
	// matches finds the session itself (SPEC §7).
	NamedByMetadata bool
	// FromFile: a file named by its path is answered from the file, indexed
	// or not, its messages and context being its lines (the resume
	// chapter's loadMessages, SPEC §3.6).
	FromFile bool
}

// LeafRule is how an agent picks a session's active leaf.
type LeafRule int

const (
	// LastEntry: the entry on the last line in file order (pi's rule,
	// SPEC §1).
	LastEntry LeafRule = iota
	// LastMainLeaf: the leaf on the highest line among the leaves that are
	// not sidechains (isSidechain: true), else the leaf on the highest
	// line (Claude Code, SPEC §3.4).
	LastMainLeaf
)

// CopyRule is what two entries of two session files share when one is a
// copy of the other (a fork, a resume that copies history).
type CopyRule int

const (
	// SameLine: the entry id, the line's CRC-32 and length, and the time
	// (pi's fork copies a line as it is; plain and messages files the
	// same).
	SameLine CopyRule = iota
	// SameMessage: the uuid, the CRC-32 of the message member and the time
	// (a Claude Code fork keeps the uuid and re-stamps sessionId).
	SameMessage
	// SamePayload: the CRC-32 of the type and payload, within one family
	// of sessions (the one they were forked or spawned from), whatever the
	// time (a Codex fork replays its parent's items on other lines with
	// new times).
	SamePayload
)

// Form is what the messages of an agent's contexts are.
type Form int

const (
	// PiMessages are pi's AgentMessages (user, assistant, toolResult,
	// bashExecution, custom, branchSummary, compactionSummary), which
	// ForLLM converts as pi's convertToLlm does.
	PiMessages Form = iota
	// APIMessages are what the model's API received, stored as such
	// (Anthropic Messages API messages, Codex Responses API items and
	// event messages): shown as they are.
	APIMessages
)

// FileKind is what a file under a session root is to an agent
// (Agent.SessionFile).
type FileKind int

const (
	// NotMine: the agent has nothing to say of the file; a *.jsonl is a
	// session file, anything else is not.
	NotMine FileKind = iota
	// Skipped: the agent's file that is no session (a prompt history), or
	// a compressed one whose plain sibling stands for it.
	Skipped
	// Compressed: a session file of the agent that grove lists but cannot
	// read (a Codex *.jsonl.zst, SPEC §3.5).
	Compressed
)

// RootsDoc is how the help names an agent's default roots (SPEC §8
// `index`), in two phrasings: Help for the help of index, watch, rebuild
// and serve ("pi ($PI_CODING_AGENT_DIR/sessions, else
// ~/.pi/agent/sessions)"), Hint for the error of a run that found none
// ("$PI_CODING_AGENT_DIR/sessions (else ~/.pi/agent/sessions)"). Both are
// "" for an agent without default roots.
type RootsDoc struct {
	Help, Hint string
}

// Identity is what a session says of itself beyond its id and workspace
// (SPEC §3.3–3.6, §8): its name ("" for none) and the session it was
// forked or spawned from ("" for none).
type Identity struct {
	Name          string
	ParentSession string
}

// ForkSource is what a fork's lines say of the session they were forked
// from (agent.Forker): its file, its workspace and its pi version (SPEC
// §3.2; 0 when unknown).
type ForkSource struct {
	Path      string
	Workspace string
	Version   int
}
