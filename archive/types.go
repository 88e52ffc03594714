package archive

import (
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/kept"
	"github.com/grove-sessions/grove/jsonl"
)

// Dialect names the format of a session file (SPEC §3): plain, pi, claude,
// codex or messages.
type Dialect = jsonl.Dialect

// The dialects of SPEC §3.1–3.6.
const (
	Plain    = jsonl.Plain
	Pi       = jsonl.Pi
	Claude   = jsonl.Claude
	Codex    = jsonl.Codex
	Messages = jsonl.Messages
)

// State is what reading a file found (SPEC §2): StateOK, StateNeedsRepair
// (an unterminated tail) or StateDamaged; in the index also StateGone and StateEarlier.
type State = jsonl.State

// The states of a session file.
const (
	StateOK          = jsonl.StateOK
	StateNeedsRepair = jsonl.StateNeedsRepair
	StateDamaged     = jsonl.StateDamaged
	// StateGone is a session whose file is gone, answered from its kept
	// committed bytes (SPEC §11).
	StateGone State = "gone"
	// StateEarlier is an earlier version of a session file, kept when the
	// file was rewritten, truncated or replaced, and answered from the kept
	// store; its path and session id end in "@vN" (SPEC §11).
	StateEarlier State = "earlier"
)

// Dialects lists every dialect in the order --dialect's help names them.
var Dialects = jsonl.Dialects

// Session is one indexed session file as the index last saw it (SPEC §3.3,
// §6): what `grove sessions` lists and every answer about a session names.
type Session struct {
	SessionID string  // SPEC §3.3–3.6: the pi header id, the rollout's UUID, else the file name without .jsonl
	Path      string  // the session file, absolute
	Dialect   Dialect // SPEC §3
	Version   int     // the pi header's version (1 to 3); 0 for the other dialects
	Workspace string  // SPEC §3.3: the directory the session worked in; "" when unknown
	Name      string  // the session's name (pi session_info, Claude title, sub-agent description); "" for none
	// ParentSession is the session file (pi) or id (claude, codex) this one
	// was forked from or is a sub-agent of; "" for none (SPEC §8).
	ParentSession string
	CreatedMs     *int64 // Unix milliseconds of the header (pi, codex) or first entry; nil when unknown
	ModifiedMs    *int64 // Unix milliseconds, SPEC §3.2: the latest message activity, else header, else file time
	Entries       int    // committed entries (SPEC §2)
	Leaves        int    // real leaves: entries no entry names as parent with only branch kinds on their paths (SPEC §1, §4.2)
	AllLeaves     int    // entries no entry names as parent, whatever their kinds (SPEC §1)
	Lines         int    // committed lines, the header and bad lines included
	State         State  // ok, needs-repair (an unterminated tail, SPEC §2.5), damaged (bad lines, duplicate ids) or gone (the file is gone, SPEC §11)
	ActiveLeaf    *string
	// FirstMessage is the first user message's text as `grove sessions`
	// shows it (at most 200 characters, SPEC §8), "" when there is none; nil
	// for a session indexed before schema 5 and not read since.
	FirstMessage *string
	FileSize     int64 // bytes, as indexed
	Diagnostics  int   // stored bad lines and warnings (SPEC §6)

	// Source is the machine (--source) whose file it is (SPEC §10).
	Source string

	row   *index.Session // the index row it came from
	store *index.DB      // the index that holds its committed bytes (PostgreSQL), else nil
	kept  *kept.Store    // the kept store that holds them when its file is gone (SQLite), else nil
}

// sessionOf is the caller's view of an index row; the row stays inside.
func sessionOf(s *index.Session) *Session {
	if s == nil {
		return nil
	}
	out := &Session{SessionID: s.SessionID, Source: s.Source, Path: s.Path, Dialect: Dialect(s.Dialect), Version: s.Version,
		Workspace: s.Workspace, Name: s.Name, ParentSession: s.ParentSession, CreatedMs: s.CreatedMs,
		ModifiedMs: s.ModifiedMs, Entries: s.Entries, Leaves: s.Leaves, AllLeaves: s.Leaves, Lines: s.Lines, State: State(s.State),
		ActiveLeaf: s.ActiveLeaf, FirstMessage: s.FirstMessage, FileSize: s.FileSize, Diagnostics: s.Diagnostics,
		row: s}
	if s.RealLeaves != nil {
		out.Leaves = *s.RealLeaves
	}
	if s.Gone {
		out.State = StateGone
		if kept.IsEarlier(s.Path, s.SessionID) {
			out.State = StateEarlier
		}
	}
	return out
}

func sessionsOf(rows []index.Session) []Session {
	out := make([]Session, len(rows))
	for i := range rows {
		out[i] = *sessionOf(&rows[i])
	}
	return out
}

// Entry is one entry of a session as the index holds it: its place in the
// tree and where its committed line is in the file (SPEC §2, §6). Message
// bodies are read back by Offset and Length (ReadLine).
type Entry struct {
	Seq       int     // 0-based position among the session's entries, in file order
	EntryID   string  // the entry's id (pi v1: L<line>, SPEC §3.2)
	ParentID  *string // nil for a root
	Type      string  // the line's type (message, compaction, user, response_item, ...)
	Role      *string // a message's role; nil for other entries
	TsMs      *int64  // Unix milliseconds; nil when the entry has no readable time
	Line      int     // 1-based physical line number
	Offset    int64   // byte offset of the line in the file
	Length    int     // bytes of the line, without its LF
	FirstKept *string // a compaction's firstKeptEntryId as resolved (SPEC §3.2); nil otherwise
	Side      bool    // a Claude Code sidechain entry (SPEC §3.4)
	// Kind is the entry's kind as a child of a branch point, PathKind the
	// first kind other than branch on its path from a root (its own
	// included): "branch", "parallel", "progress", "replay" or "command"
	// (SPEC §4.2). PathKind "branch" puts the entry on a real branch. Both
	// are "branch" for an entry that did not come from the index.
	Kind, PathKind string

	crc uint32 // CRC-32 (IEEE) of the line, to check a read-back against
}

func entryOf(e index.Entry) Entry {
	return Entry{Seq: e.Seq, EntryID: e.EntryID, ParentID: e.ParentID, Type: e.Type, Role: e.Role, TsMs: e.TsMs,
		Line: e.Line, Offset: e.Offset, Length: e.Length, FirstKept: e.FirstKept, Side: e.Side, crc: e.CRC,
		Kind: kindName(e.Kind), PathKind: kindName(e.PathKind)}
}

func entriesOf(rows []index.Entry) []Entry {
	out := make([]Entry, len(rows))
	for i, e := range rows {
		out[i] = entryOf(e)
	}
	return out
}

// Workspace is one workspace (SPEC §3.3) with how many sessions and entries
// the index holds in it and its latest modification (Unix milliseconds, nil
// when no session has a time).
type Workspace struct {
	Workspace  string
	Sessions   int
	Entries    int
	ModifiedMs *int64
}

// Diagnostic is a stored bad line or warning of a session (SPEC §2, §6).
type Diagnostic struct {
	Severity string // "error" or "warning"
	Code     string // a code of SPEC §8 (bad_line, duplicate_id, ...)
	Line     int    // 1-based physical line
	Offset   int64  // byte offset of the line
	Message  string
	ID       string // duplicate_id: the duplicated id
	Lines    []int  // duplicate_id: every line that holds it, file order
	Field    string // lone_surrogate: the field path inside the line (SPEC §2.9)
}

// FileEntry is an entry as the reader gives it from the session file (SPEC
// §2, §3): its id, parent, type, role, time, place in the file and, when
// read, its committed line (Raw). It is what the pure tree rules (PathTo,
// Leaves, BranchPoints, ActiveLeaf) and the context rules work on, and what
// File.Entries holds.
type FileEntry = jsonl.Entry
