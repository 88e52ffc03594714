package archive

import (
	"fmt"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/plural"
)

// DiskFull returns err as a disk_full *errs.Error when the file system had
// no room (ENOSPC, EDQUOT, SQLite's SQLITE_FULL; SPEC §8), else nil. Its
// Path is the file the operating system named, else that of an *errs.Error
// in the chain, else path. wanted is the size in bytes of what was being
// written, 0 when not known. The hint names the file system's mount point
// and again, the command to run once there is room.
func DiskFull(path string, err error, wanted int64, again string) error {
	return index.DiskFull(path, err, wanted, again)
}

// Explain is what a front end reports for err, an error of a command that
// used the index at dbPath: a full disk met anywhere becomes disk_full
// (with again, the command to run once there is room, in its hint), and
// damage met by a query or an ingest after the index opened becomes
// damaged_index naming dbPath (index.Classify: SQLite's corrupt and
// not-a-database codes; read-only and cannot-open become io_error). Any
// other error, and nil, is returned unchanged.
func Explain(dbPath string, err error, again string) error {
	if df := index.DiskFull(dbPath, err, 0, again); df != nil {
		err = df
	}
	return index.Classify(dbPath, err)
}

// namingHint says how a command names a session (SPEC §3.3).
const namingHint = "give an id, a unique id prefix of 4+ characters, or a file path"

// UnknownSession is the unknown_session error of the session argument
// arg, which names no indexed session (SPEC §3.3): of source's, when the
// command keeps to one source (ReadAs) and source is not "". Its message
// says how to name a session; Session is arg.
func UnknownSession(arg, source string) *errs.Error {
	msg := fmt.Sprintf("no indexed session is named %q (%s; run `grove index` if it is new)", arg, namingHint)
	if source != "" {
		msg = fmt.Sprintf("no indexed session of source %q is named %q (%s; `grove sessions` lists each session's source)", source, arg, namingHint)
	}
	return errs.New(errs.CodeUnknownSession, msg).WithSession(arg)
}

// ambiguousSession is the ambiguous_session error of the session argument
// arg, which names every session of c (two or more, SPEC §3.3): each is
// named in the message, with its source when it has one, and the hint
// says how to name one: by its file when they share the id (copies of one
// file), else by a longer id prefix or its file.
func ambiguousSession(arg string, c []errs.Candidate) *errs.Error {
	var ids []string
	sources, oneID := false, true
	for _, c1 := range c {
		oneID = oneID && c1.ID == c[0].ID
	}
	for _, c := range c {
		where := c.Path
		if c.Source != "" {
			where, sources = c.Source+": "+c.Path, true
		}
		ids = append(ids, c.ID+" ("+where+")")
	}
	msg := fmt.Sprintf("%q names %s: %s", arg, plural.Count(len(c), "session", "sessions"), strings.Join(ids, ", "))
	if sources {
		msg += "; --source NAME picks that source's"
	}
	hint := "name the session by its file path"
	if !oneID {
		hint = "give more of the session id, or its file path"
	}
	return errs.New(errs.CodeAmbiguousSession, msg).WithSession(arg).WithCandidates(c).WithHint(hint)
}

// hintRunIndex is the hint of a stale_index error: the session file is not
// what the index holds (SPEC §6).
const hintRunIndex = "run `grove index`"

// hintReindex is hintRunIndex for the session file at path, which a file
// outside the index's roots needs named.
func hintReindex(path string) string {
	return hintRunIndex + " to bring the index up to date (`grove index " + path + "` for a file outside the roots it reads)"
}
