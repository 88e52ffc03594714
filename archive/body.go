package archive

import (
	"context"
	"io"
	"os"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/kept"
)

// Where message bodies are read back from (SPEC §6, §10): the session file
// itself, by byte offset; or, with the index in PostgreSQL, the file's
// committed bytes the index stored, so that a machine without the files
// answers the same, byte for byte.

// SessionFile is a session's committed bytes to read lines back from by
// offset: an *os.File, an *index.StoredFile, or a *kept.File (the file is
// gone, SPEC §11).
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
	if s.kept != nil && s.row != nil && s.row.Gone {
		f, err := s.kept.OpenFile(s.row.Source, s.row.Path)
		if err != nil {
			return nil, errs.Wrap(errs.CodeStaleIndex, err, "the session file is gone and its kept copy cannot be read: "+err.Error()).In(s.Path).WithHint("run `grove verify`")
		}
		return f, nil
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
	if out != nil && s.Gone && !a.db().IsServer() {
		out.kept = a.ix.KeptStore()
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
	} else {
		for i := range out {
			if rows[i].Gone {
				out[i].kept = a.ix.KeptStore()
			}
		}
	}
	return out
}

// IsServer reports whether the index is in PostgreSQL (SPEC §10).
func (a *Archive) IsServer() bool { return a.db().IsServer() }

// fresh is Fresh for an index row: in PostgreSQL every row is fresh, its
// bodies being the bytes the index stored with it.
func (a *Archive) fresh(s *index.Session) error {
	if a.db().IsServer() || s.Gone {
		return nil
	}
	return fresh(s)
}

// openKept opens the kept copy of the session file path of source (SPEC
// §11). Errors: kept.ErrNotKept, in PostgreSQL too.
func (a *Archive) openKept(source, path string) (SessionFile, error) {
	st := a.ix.KeptStore()
	if st == nil {
		return nil, kept.ErrNotKept
	}
	return st.OpenFile(source, path)
}

// KeptCost is what the kept store costs (SPEC §11): its bytes on disk,
// the session files it keeps, the sessions of the index whose file is
// gone (answered from the kept bytes, or in PostgreSQL from the index's)
// and the earlier versions of rewritten files it answers (StateEarlier).
type KeptCost struct {
	Bytes   int64 `json:"bytes"`
	Files   int   `json:"files"`
	Gone    int   `json:"gone"`
	Earlier int   `json:"earlier,omitempty"`
}

// KeptCost measures the kept store beside the index. ok is false when
// there is none (never written, or PostgreSQL with no session gone).
func (a *Archive) KeptCost(ctx context.Context) (c KeptCost, ok bool, err error) {
	rows, err := a.db().GoneSessions(ctx)
	if err != nil {
		return c, false, err
	}
	for _, r := range rows {
		if kept.IsEarlier(r.Path, r.SessionID) {
			c.Earlier++
		} else {
			c.Gone++
		}
	}
	if st := a.ix.KeptStore(); st != nil {
		if c.Bytes, c.Files, err = st.Stats(); err != nil {
			return c, false, err
		}
	}
	return c, c.Files > 0 || c.Gone > 0 || c.Earlier > 0, nil
}
