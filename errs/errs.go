package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable, machine-readable error or warning code (SPEC §2, §4, §8).
// Codes appear in --json output and never change meaning.
type Code string

// The codes of SPEC §8, plus the warning codes of SPEC §2 and §3.2.
const (
	CodeBadLine           Code = "bad_line"            // a committed line that is not a valid entry or header (§2.4)
	CodeUnterminatedTail  Code = "unterminated_tail"   // non-whitespace bytes after the last LF (§2.5)
	CodeExtraHeader       Code = "extra_header"        // a second pi header line, ignored (§3.2)
	CodeBadTimestamp      Code = "bad_timestamp"       // a pi entry whose timestamp is missing or unreadable (§3.2)
	CodeUnknownVersion    Code = "unknown_version"     // a pi header version above 3 (§3.2)
	CodeLoneSurrogate     Code = "lone_surrogate"      // a kept line whose string escapes half a UTF-16 surrogate pair (§2.9)
	CodeDuplicateID       Code = "duplicate_id"        // an id used by two entries of one session (§4.1)
	CodeMissingParent     Code = "missing_parent"      // a parentId naming no entry (§4.2)
	CodeCycle             Code = "cycle"               // a walk to the root that meets an id twice (§4.2)
	CodeUnknownEntry      Code = "unknown_entry"       // a leaf id that names no entry (§4.2)
	CodeUnknownSession    Code = "unknown_session"     // a session argument that names no session (§3.3)
	CodeAmbiguousSession  Code = "ambiguous_session"   // a session argument that names two or more sessions (§3.3)
	CodeNeedsRepair       Code = "needs_repair"        // a writer refused: the file has an unterminated tail (§5)
	CodeTainted           Code = "tainted"             // a writer refused: an earlier write failed (§5)
	CodeInvalidEntry      Code = "invalid_entry"       // an entry refused before it was written (§5)
	CodeStaleIndex        Code = "stale_index"         // the file changed since it was indexed (§6)
	CodeBadQuery          Code = "bad_query"           // a search query that cannot be run (§8)
	CodeNewerIndex        Code = "newer_index"         // the index was made by a newer grove (§6)
	CodeNotIndex          Code = "not_index"           // the index path holds a file that is not a grove index
	CodeDamagedIndex      Code = "damaged_index"       // a grove index that SQLite cannot read any more (corrupt, truncated)
	CodeIndexBusy         Code = "index_busy"          // another grove is writing the index and this one did not wait
	CodeNoIndex           Code = "no_index"            // a reading command found no index file at the path
	CodeLocked            Code = "locked"              // another writer holds the session file (SPEC §5)
	CodeNothingToRepair   Code = "nothing_to_repair"   // grove repair on a file without an unterminated tail
	CodeIO                Code = "io_error"            // the operating system refused a read or write
	CodeFileExists        Code = "file_exists"         // an output file is already there and is never appended to or replaced
	CodeWrongDialect      Code = "wrong_dialect"       // an operation for one dialect asked of a session of the other (a pi fork of a plain session)
	CodeSessionIDMismatch Code = "session_id_mismatch" // a warning: a Codex rollout's file name holds another UUID than its header's id (FORMATS.md §2.3)
)

// The codes of SPEC §8 that guard grove's own writes: export targets and
// a full disk.
const (
	// CodeWouldReplace is an export target that is a session file: the
	// source, an indexed session's file, a file under an indexed root, or
	// one whose first line is a session header or entry of any dialect.
	// Refused even with --force; nothing is written.
	CodeWouldReplace Code = "would_replace_session"
	// CodeWouldReplaceIndex is an export target that is grove's index: the
	// index the command uses, a file grove keeps beside it (-wal, -shm,
	// -journal, .lock, .sources, .rebuild, .damaged-*), or any file whose
	// first 100 bytes are a SQLite header with grove's application id.
	// Refused even with --force; nothing is written.
	CodeWouldReplaceIndex Code = "would_replace_index"
	// CodeDiskFull is a write the file system had no room for (ENOSPC, or
	// SQLite's SQLITE_FULL): Path names the file, the hint what to free.
	CodeDiskFull Code = "disk_full"
)

// CodeCannotResume is a `grove resume` the session's agent has no
// command for (SPEC §12): a Codex entry before the end of its rollout, a
// Claude Code sub-agent's file or sidechain entry, an earlier Claude Code
// entry without a first message, a workspace that is unknown or not a
// directory here, --exec of a file no agent runs. The message names what
// would work.
const CodeCannotResume Code = "cannot_resume"

// CodeUnsupportedCompression is a session file grove lists but does not
// read: a Codex rollout compressed with zstd (*.jsonl.zst, SPEC §3.5).
// Its session has no entries and this one diagnostic.
const CodeUnsupportedCompression Code = "unsupported_compression"

// CodeNotFollowed is a note, not a failure: a symlink to a directory below
// a session root, which a walk of the root does not follow (no loops, no
// session under two names); the directory's sessions are indexed when it
// is named as a root.
const CodeNotFollowed Code = "not_followed"

// Sentinels for errors.Is: an *Error matches the sentinel of its Code, so
// errors.Is(err, errs.ErrCycle) is true for any cycle error, whatever its
// id or path.
var (
	// ErrBadLine is returned when a committed line is not a valid entry or
	// header (SPEC §2.4), by strict reading.
	ErrBadLine = &Error{Code: CodeBadLine}
	// ErrDuplicateID is returned by PathTo, the index's path query and strict
	// recovery when an id is used twice in one session (SPEC §4 rule 1).
	ErrDuplicateID = &Error{Code: CodeDuplicateID}
	// ErrMissingParent is returned when a path meets a parent id that names
	// no entry (SPEC §4 rule 2).
	ErrMissingParent = &Error{Code: CodeMissingParent}
	// ErrCycle is returned when a path meets an id twice (SPEC §4 rule 2).
	ErrCycle = &Error{Code: CodeCycle}
	// ErrUnknownEntry is returned when a leaf id names no entry (SPEC §4).
	ErrUnknownEntry = &Error{Code: CodeUnknownEntry}
	// ErrStaleIndex is returned when a session file changed since it was
	// indexed (SPEC §6).
	ErrStaleIndex = &Error{Code: CodeStaleIndex}
	// ErrIO is returned when the operating system refuses a read, or a
	// session path is not a regular file.
	ErrIO = &Error{Code: CodeIO}
)

// Error is a structured file-format or tree error. Every field but Code and
// Message is optional: Line is 0 and Offset is -1 when they do not apply.
//
// It is what SPEC §8's error object is made from: {"code","message",...}.
type Error struct {
	Code    Code
	Path    string   // the session file, when known
	Line    int      // physical line number, 1-based (§1); 0 when not line-specific
	Offset  int64    // byte offset of the line's first byte; -1 when unknown
	ID      string   // the entry the error is about (duplicate_id, missing_parent, cycle, unknown_entry)
	Parent  string   // the parent id that was not found (missing_parent)
	Lines   []int    // every line holding the duplicated id (duplicate_id)
	Loop    []string // the ids of the loop, from the id met twice round to it again (cycle)
	Field   string   // the field path inside the line, e.g. "message.content[0].text" (lone_surrogate)
	Message string   // lower-case human text, without the path or line
	Hint    string   // what the user can do about it, may be empty
	Err     error    // the underlying cause, may be nil
	// Session is the session argument as given (a path, an id or an id
	// prefix) that names no session or several (unknown_session,
	// ambiguous_session; SPEC §3.3).
	Session string
	// Candidates are the sessions an ambiguous session argument names
	// (ambiguous_session).
	Candidates []Candidate
}

// Candidate is one session an ambiguous session argument could mean.
type Candidate struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Source string `json:"source,omitempty"` // the machine whose file it is, when sources differ (SPEC §10)
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Line > 0 && e.Offset >= 0 {
		fmt.Fprintf(&b, "(byte %d) ", e.Offset)
	}
	b.WriteString(e.Message)
	if e.Message == "" && e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	fmt.Fprintf(&b, " [%s]", e.Code)
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, errs.New(errs.CodeCycle, "")) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// CodeOf returns the Code of the first *Error in err's chain, or "" if none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
