package archive

import (
	"context"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/transcript"
)

// Transcript is the path to a leaf made ready to render for people (`grove
// export --format md|html`, SPEC §8): the session's facts and every entry
// of the path with its label. From Archive.Transcript it holds no entry's
// line: each is read back from the session file as its block is made.
type Transcript struct {
	Session *Session
	Leaf    string // the leaf's id
	Entries int    // entries on the path, the root and the leaf included
	doc     transcript.Doc

	// Set by Archive.Transcript: the lines are read from this file by
	// offset (ReadLine) while the transcript renders, and ctx stops it.
	ctx     context.Context
	path    *Path
	fromDoc bool // the lines are in doc (NewTranscript)
}

// Transcript reads the path to leaf (the active leaf when "") of session
// for a transcript: the path by CTE, every entry's committed line read back
// by offset and checked against its CRC-32 (each let go once checked, so a
// stale line is an error before anything is written), and the session's
// labels; an entry a context edit at the leaf replaced or removed
// (ContextEdits) is marked so. Errors: those of ExportPath and of
// ContextEdits, but for an edit without a replacement, which marks
// nothing.
//
// The lines are read again as the transcript renders, one at a time
// (SPEC §2.8: a 60 MB session is never held whole); a line that changed
// since is stale_index then, and ctx's end stops the rendering, both
// returned by Markdown and HTML.
func (a *Archive) Transcript(ctx context.Context, session, leaf string) (*Transcript, error) {
	p, labels, err := a.checkedPath(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	path := make([]FileEntry, len(p.Entries))
	for i, e := range p.Entries {
		path[i] = jsonlEntry(e)
	}
	t := NewTranscript(p, path, labels)
	t.ctx, t.path, t.fromDoc = ctx, p, false
	edits, err := a.ContextEdits(ctx, p)
	var je *errs.Error
	switch {
	case errors.As(err, &je) && je.Code == errs.CodeBadLine:
		// An edit pi cannot apply: the transcript shows every entry as
		// written, marking none (`grove context` names the line).
	case err != nil:
		return nil, err
	}
	t.markEdited(edits)
	return t, nil
}

// checkedPath is Path of session to leaf, every line of it checked
// against the index (checkLines), with the session's labels.
func (a *Archive) checkedPath(ctx context.Context, session, leaf string) (*Path, map[string]string, error) {
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, nil, err
	}
	if err := checkLines(ctx, p); err != nil {
		return nil, nil, err
	}
	labels, err := a.db().Labels(ctx, p.Session.row.SID)
	if err != nil {
		return nil, nil, err
	}
	return p, labels, nil
}

// checkLines reads every committed line of p back by offset, 64 KB at a
// time, and checks it against its CRC-32 as ReadLine does: stale_index
// for the first that differs or cannot be read, ctx's error when it ends.
// It holds no line, nor allocates one.
func checkLines(ctx context.Context, p *Path) error {
	f, err := p.Session.open()
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for i, e := range p.Entries {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		h := crc32.NewIEEE()
		for off := 0; off < e.Length; {
			n := min(len(buf), e.Length-off)
			if _, err := f.ReadAt(buf[:n], e.Offset+int64(off)); err != nil {
				return readBackErr(p.Session.Path, e, err)
			}
			h.Write(buf[:n])
			off += n
		}
		if h.Sum32() != e.crc {
			return changedErr(p.Session.Path, e)
		}
	}
	return nil
}

// NewTranscript takes the answer of ExportPath: p, its entries with their
// lines (root first) and the session's labels by target id; the entries a
// context edit at the leaf replaced or removed (PathEdits) are marked so.
// The lines move into the transcript: path's Raw fields are cleared, and
// the renderer lets each go once shown, so a large session is not held
// twice (SPEC §2.8).
func NewTranscript(p *Path, path []FileEntry, labels map[string]string) *Transcript {
	edits, _ := PathEdits(p.Session.Dialect, path, p.Session.Version) // an edit pi cannot apply marks nothing
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
	t := &Transcript{Session: p.Session, Leaf: p.Leaf, Entries: len(path), doc: d, fromDoc: true}
	t.markEdited(edits)
	return t
}

// markEdited marks the entries of t that edits (ContextEdits' answer)
// names.
func (t *Transcript) markEdited(edits map[string]string) {
	for i := range t.doc.Entries {
		t.doc.Entries[i].Edited = edits[t.doc.Entries[i].ID]
	}
}

// Markdown writes the transcript to w as Markdown (CommonMark with GitHub's
// <details>): a title, a facts block, then every entry in order. Errors:
// w's; for a transcript from Archive.Transcript also stale_index for a line
// that changed since it was checked, and the context's error when it ended
// (the document then stops where it is). A transcript renders once: its
// lines are let go as shown.
func (t *Transcript) Markdown(w io.Writer) error {
	return t.render(func(d transcript.Doc) error { return transcript.Markdown(w, d) })
}

// HTML writes the transcript to w as one self-contained HTML page with the
// same content as Markdown (inline CSS, no script, values escaped).
// Errors: those of Markdown. A transcript renders once.
func (t *Transcript) HTML(w io.Writer) error {
	return t.render(func(d transcript.Doc) error { return transcript.HTML(w, d) })
}

// render runs write on t's Doc, with Doc.Line reading each line from the
// session file when t came from Archive.Transcript.
func (t *Transcript) render(write func(transcript.Doc) error) error {
	if t.fromDoc {
		return write(t.doc)
	}
	p := t.path
	f, err := p.Session.open()
	if err != nil {
		return err
	}
	defer f.Close()
	d := t.doc
	d.Line = func(i int) (json.RawMessage, error) {
		if err := t.ctx.Err(); err != nil {
			return nil, err
		}
		return ReadLine(f, p.Session.Path, p.Entries[i])
	}
	return write(d)
}

// Path is the path the transcript shows: its session and entries, root
// first (nil for one made by NewTranscript).
func (t *Transcript) Path() *Path { return t.path }

// Fragment says which entries of a transcript HTMLFragment shows, how
// their anchors are named and what follows each (transcript.Fragment).
type Fragment = transcript.Fragment

// HTMLFragment writes the blocks of the transcript's entries f.From to
// f.To (indexes into the path, root first) as an HTML fragment without
// page, facts or style: grove serve's transcript page (SPEC §9), which
// links TranscriptCSS. Errors: those of Markdown. A transcript renders
// once.
func (t *Transcript) HTMLFragment(w io.Writer, f Fragment) error {
	return t.render(func(d transcript.Doc) error { return transcript.HTMLFragment(w, d, f) })
}

// TranscriptCSS is the stylesheet of HTML's page, for a page that links
// it (grove serve's strict Content-Security-Policy allows no inline style).
func TranscriptCSS() string { return transcript.Stylesheet() }
