package archive

import (
	"context"
	"io"

	"github.com/grove-sessions/grove/internal/transcript"
)

// Transcript is the path to a leaf made ready to render for people (`grove
// export --format md|html`, SPEC §8): the session's facts and every entry
// of the path with its committed line and its label.
type Transcript struct {
	Session *Session
	Leaf    string // the leaf's id
	Entries int    // entries on the path, the root and the leaf included
	doc     transcript.Doc
}

// Transcript reads the path to leaf (the active leaf when "") of session
// for a transcript: every entry's committed line read back by offset and
// checked against its CRC-32, and the session's labels. Errors: those of
// ExportPath.
func (a *Archive) Transcript(ctx context.Context, session, leaf string) (*Transcript, error) {
	p, path, labels, err := a.ExportPath(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	return NewTranscript(p, path, labels), nil
}

// NewTranscript takes the answer of ExportPath: p, its entries with their
// lines (root first) and the session's labels by target id. The lines move
// into the transcript: path's Raw fields are cleared, and the renderer lets
// each go once shown, so a large session is not held twice (SPEC §2.8).
func NewTranscript(p *Path, path []FileEntry, labels map[string]string) *Transcript {
	d := transcript.Doc{SessionID: p.Session.SessionID, Name: p.Session.Name, Workspace: p.Session.Workspace,
		Path: p.Session.Path, Dialect: string(p.Session.Dialect), Version: p.Session.Version, Leaf: p.Leaf,
		Release: true}
	for i, e := range path {
		te := transcript.Entry{ID: e.ID, Type: e.Type, Role: e.Role, Label: labels[e.ID], FirstKept: e.FirstKept, Raw: e.Raw}
		if e.HasTime {
			ms := e.Timestamp
			te.TimestampMs = &ms
		}
		d.Entries = append(d.Entries, te)
		path[i].Raw = nil // d holds the line now
	}
	return &Transcript{Session: p.Session, Leaf: p.Leaf, Entries: len(path), doc: d}
}

// Markdown writes the transcript to w as Markdown (CommonMark with GitHub's
// <details>): a title, a facts block, then every entry in order. The only
// error is w's. A transcript renders once: its lines are let go as shown.
func (t *Transcript) Markdown(w io.Writer) error { return transcript.Markdown(w, t.doc) }

// HTML writes the transcript to w as one self-contained HTML page with the
// same content as Markdown (inline CSS, no script, values escaped). The
// only error is w's. A transcript renders once.
func (t *Transcript) HTML(w io.Writer) error { return transcript.HTML(w, t.doc) }
