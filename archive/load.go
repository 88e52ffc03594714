package archive

import (
	"context"

	"github.com/grove-sessions/grove/index"
)

// loaded is what the per-session answers (leaves, branches, tree) read of
// one session: its entries in file order (when asked for), its labels by
// target id, and whether its file still is what the index saw (SPEC §6).
type loaded struct {
	s       *Session
	entries []Entry           // file order; nil unless load was asked for them
	labels  map[string]string // pi labels by target id (a cleared label is none)
	stale   error             // fresh's stale_index error; nil when the file is as indexed
}

// load reads the labels of s and, with entries, its entries from the
// index, then checks that its file is as indexed (stale holds why not).
// Errors are the index's.
func (a *Archive) load(ctx context.Context, s *index.Session, entries bool) (*loaded, error) {
	l := &loaded{s: a.sessionOf(s)}
	if entries {
		rows, err := a.db().EntriesOf(ctx, s.SID)
		if err != nil {
			return nil, err
		}
		l.entries = entriesOf(rows)
	}
	labels, err := a.db().Labels(ctx, s.SID)
	if err != nil {
		return nil, err
	}
	l.labels, l.stale = labels, a.fresh(s)
	return l, nil
}

// open opens the session file to read lines back from, nil when it is
// stale or cannot be opened (then there are no previews). The caller
// closes it.
func (l *loaded) open() SessionFile {
	if l.stale != nil {
		return nil
	}
	f, err := l.s.open()
	if err != nil {
		return nil
	}
	return f
}

// preview is one line (PreviewWidth runes) from e's committed line read
// back from f; "" when f is nil or the line changed (ReadLine).
func (l *loaded) preview(f SessionFile, e Entry) string {
	if f == nil {
		return ""
	}
	raw, err := ReadLine(f, l.s.Path, e)
	if err != nil {
		return ""
	}
	return PreviewIn(l.s.Dialect, raw, PreviewWidth)
}
