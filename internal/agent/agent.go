// Package agent is what grove knows of each coding agent whose session
// files it reads: one interface, Agent, with one implementation per
// dialect, each in its own folder (pi, plain, messages, claude, codex),
// and the registry of them (All, Of). docs/agents.md lists what an agent
// must provide; adding one is a folder and a line in All.
//
// An agent's rules live in two places: its folder here, and the reading
// of its lines in the parser, one file per dialect in package jsonl
// (jsonl/dialect_<name>.go, and the search text in jsonl/text*.go), which
// Agent embeds as jsonl.Rules. The lines stay in jsonl because reading
// them is grove's core parser: one JSON walker shared by every dialect,
// the committed-line rules of SPEC §2, the Codex event pairing that reads
// ahead in the file, all fuzzed and property-tested there.
//
// The package sits below archive, the index and the write path: it
// imports jsonl and errs and nothing of grove above them, so that the
// index applies an agent's traits (the active leaf, copies) and the
// ingest its identity rules without a cycle. Rendering a transcript
// (internal/transcript) keeps its per-dialect files there: it needs
// Markdown and HTML, which these packages must not pull in.
//
// # Caveats
//
//   - Of gives plain's agent for a dialect it does not know, as
//     jsonl.RulesOf does: a file no line decided is plain (SPEC §3).
//   - Traits are data so that SQL and the tree rules can apply them; an
//     agent whose rule is none of the kinds a trait names needs a new kind
//     in kit and the code that applies it.
package agent

import (
	"context"
	"time"

	"github.com/grove-sessions/grove/internal/agent/claude"
	"github.com/grove-sessions/grove/internal/agent/codex"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/internal/agent/messages"
	"github.com/grove-sessions/grove/internal/agent/pi"
	"github.com/grove-sessions/grove/internal/agent/plain"
	"github.com/grove-sessions/grove/jsonl"
)

// Agent is what grove knows of one agent's session files beyond reading
// their lines (SPEC §3, FORMATS.md). Methods never fail unless they say
// so; a line that is not what a rule expects gives nothing, not an error,
// as a broken branch elsewhere never stops a path (SPEC §4).
type Agent interface {
	// Reading (jsonl/dialect_<name>.go): the dialect's name, how a line
	// becomes an entry, a header or metadata, where an entry's message,
	// search text (SPEC §7) and first-message text are, what a copy of an
	// entry keeps, and whether grove may append to such a file (SPEC §5).
	jsonl.Rules

	// Name is the agent as people know it: "pi", "Claude Code", "Codex";
	// for the chapters' logs the dialect's name. Errors say "grove never
	// writes Claude Code's files".
	Name() string
	// Traits are its rules that code outside its folder applies as data.
	Traits() Traits

	// --- Where its sessions live (SPEC §8 `index`) ---

	// Roots are its default session roots, in the order grove reads them,
	// whether they exist or not: home is the user's home directory and
	// getenv the environment (an agent's variable, when set and not empty,
	// replaces its home as a whole). nil for an agent with none.
	Roots(home string, getenv func(string) string) []string
	// RootsDoc is how the help names Roots.
	RootsDoc() RootsDoc
	// Claims reports whether a file at path that has no parseable line is
	// the agent's by where it is, before jsonl.DialectAt's rules (SPEC §3:
	// under $CLAUDE_CONFIG_DIR/projects, claude).
	Claims(path string, getenv func(string) string) bool
	// SessionFile says what the file name in the directory dir is to the
	// agent (FORMATS.md §1.1, §2.1): NotMine, or its file that is no session
	// (Skipped), or its session file that grove lists but cannot read
	// (Compressed). It may stat dir's entries.
	SessionFile(dir, name string) FileKind

	// --- Identity (SPEC §3.3–3.6) ---

	// SessionID is the id of the session file at path with header h (nil
	// when it has none): the header's id, else what the file name gives.
	SessionID(path string, h *jsonl.Header) string
	// Workspace is the session's workspace after a read of its file: prev
	// is the workspace an earlier read found ("" for a read from byte 0),
	// h the header the read found (nil when none or when it went on from
	// an earlier read), f the facts of the entries it read.
	Workspace(prev, path string, h *jsonl.Header, f *Facts) string
	// MetaFacts completes id from what a read found beyond the entries
	// and the header (res; Claude Code's title, summary and sessionId,
	// SPEC §3.4): has tells whether an id is an entry of the session, and
	// reread, when not nil, reads the whole file again (the read went on
	// from an earlier one, whose lines still count). Agents whose identity
	// is their header and entries do nothing. Errors: those of has and
	// reread.
	MetaFacts(path string, id *Identity, res *jsonl.Result, has func(id string) (bool, error), reread func() (*jsonl.Result, error)) error
	// FallbackName is the name of a session at path whose lines give none
	// (a Claude Code sub-agent's meta.json description), "" for none.
	FallbackName(path string) string
	// ChildKind names what a session of the agent at path is, listed
	// under the session it names as its parent: "sub-agent", "fork" or
	// "child".
	ChildKind(path string) string

	// --- Entries ---

	// Activity is the time, in Unix milliseconds, that the user or
	// assistant message entry e counts for in the session's modified time
	// (SPEC §3.2, pi's getLastActivityTime); ok false when it has none.
	Activity(e *jsonl.Entry) (ms int64, ok bool)
	// Preview is a one-line summary of a committed line, before it is
	// clipped and its terminal escapes are removed: a message's text, a
	// tool call's name and arguments, a summary, a label; "" when the line
	// holds nothing readable (SPEC §8 leaves, tree).
	Preview(raw []byte) string

	// --- Model context (SPEC §4.1, §3.4–3.6) ---

	// ContextLine reports whether Context reads the line of an entry of
	// type typ and role role (the others reach it with a nil Raw).
	ContextLine(typ, role string) bool
	// Context is the model context at the end of in.Path. Errors:
	// bad_line for a line it reads that is not what it must be (the
	// reader lets none through), and those of in.Header.
	Context(in ContextInput) (*Context, error)
	// ContextHeader reports whether line is the header line Context reads
	// through ContextInput.Header; false for every line of an agent whose
	// context reads none.
	ContextHeader(line []byte) bool
	// ContextStart is the index on path (root first; Raw not needed) of
	// the first entry the model's context still holds at its end, when a
	// compaction left the entries before it out; -1 when the model saw the
	// path from its root. line reads the line of path[i]. Errors: those of
	// line, and ctx's.
	ContextStart(ctx context.Context, path []jsonl.Entry, line func(i int) ([]byte, error)) (int, error)
	// ForLLM is the context c as the model receives it (SPEC §4.1
	// --llm): pi's convertToLlm for pi's messages, a copy for messages the
	// API received as they are.
	ForLLM(c *Context) *Context
}

// Forker is an agent that can make a new session file of its own holding
// a path of one of its sessions (`export --format jsonl`, SPEC §5): pi,
// whose fork is its createBranchedSession. The archive reads the path's
// lines back and writes the fork through the committed-log writer; the
// lines are made here, in order: ForkHeader, a ForkLine per entry of the
// path, then ForkLabels.
type Forker interface {
	// ForkHeader is the new file's header line: id is its session id,
	// now its time.
	ForkHeader(src ForkSource, id string, now time.Time) []byte
	// ForkLine is the fork's line for path[i], whose committed line is
	// raw. Errors: bad_line for a line that cannot be carried over.
	ForkLine(src ForkSource, path []jsonl.Entry, i int, raw []byte) ([]byte, error)
	// ForkLabels are the lines after the path that make the fork label its
	// entries as labels (the source's, by target id) says.
	ForkLabels(path []jsonl.Entry, labels map[string]string, now time.Time) [][]byte
}

// Editor is an agent whose files hold entries that change what the model
// sees of earlier entries without touching them (pi 1.x's context_edit,
// SPEC §4.1): a transcript and a search hit say which entries an edit
// replaced or removed.
type Editor interface {
	// EditEntry reports whether an entry of type typ edits others.
	EditEntry(typ string) bool
	// EditLine reports whether ContextEdits reads the line of an entry of
	// type typ (the others reach it with a nil Raw).
	EditLine(typ string) bool
	// ContextEdits is, for the context at the end of path (root first,
	// as PathTo returns it, of a session of pi version version), what
	// the edits among its context entries did to the entries they name:
	// entry id → "replaced" or "removed"; entries an edit leaves as the
	// model saw them are not listed. Errors: bad_line for an edit the
	// agent itself cannot build the context through.
	ContextEdits(path []jsonl.Entry, version int) (map[string]string, error)
}

// Resumer is an agent with a command of its own that goes on from an
// entry of one of its sessions, run in the session's workspace (SPEC §12
// `grove resume`): pi's `pi --session FILE`, Claude Code's `claude
// --resume ID`, Codex's `codex resume ID`; for the dialects no agent runs
// (messages, plain), the file itself. Every agent is one.
type Resumer interface {
	// Resume is the command for at. Errors: cannot_resume, naming what
	// would work, for a point the agent's commands do not go on from.
	Resume(at ResumeAt) (*Resume, error)
}

// ForkResumer is a Resumer that goes on from another leaf than the active
// one in a fork of its path (pi: its files open at their last entry): the
// caller forks (Forker) into ForkDir and resumes the fork.
type ForkResumer interface {
	Resumer
	Forker
	// ForkDir is the folder the agent keeps the sessions of workspace in,
	// home the user's home directory and getenv the environment.
	ForkDir(workspace, home string, getenv func(string) string) string
}

// Spawner is an agent whose sessions start sub-agent runs from tool calls
// (Claude Code's Task and Agent calls, FORMATS.md §1.6): the runs inline
// in the session's file and the sub-agent sessions of their own, each
// linked to the call that started it.
type Spawner interface {
	// RunLine reports whether Runs reads the line of an entry of type typ
	// (the others reach it with a nil Raw).
	RunLine(typ string) bool
	// Runs are the sub-agent runs of a session whose entries, in file
	// order, are entries (with Raw where RunLine says), in the order of
	// their calls, then the runs no call started.
	Runs(entries []jsonl.Entry) []Run
}

// The words of the interface, defined in kit for the agent folders.
type (
	Context      = kit.Context
	Model        = kit.Model
	ContextInput = kit.ContextInput
	Traits       = kit.Traits
	LeafRule     = kit.LeafRule
	CopyRule     = kit.CopyRule
	Form         = kit.Form
	FileKind     = kit.FileKind
	RootsDoc     = kit.RootsDoc
	Facts        = kit.Facts
	Identity     = kit.Identity
	ForkSource   = kit.ForkSource
	ResumeAt     = kit.ResumeAt
	Resume       = kit.Resume
	Run          = kit.Run
)

// The kinds of the traits (kit's).
const (
	LastEntry    = kit.LastEntry
	LastMainLeaf = kit.LastMainLeaf
	SameLine     = kit.SameLine
	SameMessage  = kit.SameMessage
	SamePayload  = kit.SamePayload
	PiMessages   = kit.PiMessages
	APIMessages  = kit.APIMessages
	NotMine      = kit.NotMine
	Skipped      = kit.Skipped
	Compressed   = kit.Compressed
)

// All are the agents grove reads, in the order grove names their dialects
// (jsonl.Dialects). Adding an agent is a folder and a line here.
var All = []Agent{
	pi.New(),
	plain.New(),
	messages.New(),
	claude.New(),
	codex.New(),
}

// Default is the agent of a file no line has decided yet: plain (SPEC §3,
// "anything else makes it plain").
var Default Agent = plain.New()

// Forkers and Editors: the agents that fork and edit (a compile-time
// check).
var (
	_ Forker = pi.New()
	_ Editor = pi.New()
)

// Resumers: every agent resumes; pi through a fork (compile-time checks).
var (
	_ ForkResumer = pi.New()
	_ Resumer     = plain.New()
	_ Resumer     = messages.New()
	_ Resumer     = claude.New()
	_ Resumer     = codex.New()
)

// Spawners: the agents whose sessions start sub-agent runs (a
// compile-time check).
var _ Spawner = claude.New()

// Of is the agent of dialect d; an unknown name gets Default's.
func Of(d jsonl.Dialect) Agent {
	for _, a := range All {
		if a.Dialect() == d {
			return a
		}
	}
	return Default
}

// EmptyContext is the context of a session without entries in dialect d:
// no messages, thinking level "off", no model.
func EmptyContext(d jsonl.Dialect) *Context { return kit.EmptyContext(d) }
