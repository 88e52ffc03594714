package archive

import (
	"io"
	"os"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
)

// Where message bodies are read back from (SPEC §6, §10): the session file
// itself, by byte offset; or, with the index in PostgreSQL, the file's
// committed bytes the index stored, so that a machine without the files
// answers the same, byte for byte.

// SessionFile is a session's committed bytes to read lines back from by
// offset: an *os.File, or an *index.StoredFile.
type SessionFile interface {
	io.ReaderAt
	io.Closer
}

// open opens where s's lines are read back from. Errors: stale_index
// naming the file when it cannot be opened.
func (s *Session) open() (SessionFile, error) {
	if s.store != nil && s.row != nil {
		if f, ok := s.store.OpenStored(s.row); ok {
			return f, nil
		}
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return nil, errs.Wrap(errs.CodeStaleIndex, err, "cannot read the session file: "+errs.PathReason(err)).In(s.Path)
	}
	return f, nil
}

// OpenSession opens where the lines of s are read back from (ReadLine):
// the session file, or in PostgreSQL the committed bytes the index holds.
func (a *Archive) OpenSession(s *Session) (SessionFile, error) { return s.open() }

// openRow is open for an index row.
func (a *Archive) openRow(s *index.Session) (SessionFile, error) { return a.sessionOf(s).open() }

// sessionOf is the caller's view of an index row; the row stays inside,
// with where its bodies are read from.
func (a *Archive) sessionOf(s *index.Session) *Session {
	out := sessionOf(s)
	if out != nil && a.db().IsServer() {
		out.store = a.db()
	}
	return out
}

// sessionsOf is sessionOf for every row.
func (a *Archive) sessionsOf(rows []index.Session) []Session {
	out := sessionsOf(rows)
	if a.db().IsServer() {
		for i := range out {
			out[i].store = a.db()
		}
	}
	return out
}

// IsServer reports whether the index is in PostgreSQL (SPEC §10).
func (a *Archive) IsServer() bool { return a.db().IsServer() }

// fresh is Fresh for an index row: in PostgreSQL every row is fresh, its
// bodies being the bytes the index stored with it.
func (a *Archive) fresh(s *index.Session) error {
	if a.db().IsServer() {
		return nil
	}
	return fresh(s)
}
