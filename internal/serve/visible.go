package serve

import (
	"io"
	"unicode/utf8"

	"github.com/grove-sessions/grove/internal/visible"
)

// visibleHTML writes an HTML page to w with every control character of
// its text shown as grove's command line shows it (internal/visible:
// \u202e, \x1b), but for line feeds, tabs and carriage returns, HTML's
// white space. Session text reaches a page in many places (names,
// workspaces, previews, snippets, transcripts, the title): this is the
// one place where a bidirectional override in it is kept from reordering
// what the page shows. Tags and their attribute values pass as they are:
// html/template and the Markdown renderer escape '<' and '>' in text and
// in attribute values, so a '<' always opens one of grove's tags, and a
// search form keeps the query as typed. A character cut between two
// writes is held until the next one, or Close.
type visibleHTML struct {
	w     io.Writer
	inTag bool
	held  []byte // the start of a character the last write ended in
	err   error
}

func newVisibleHTML(w io.Writer) *visibleHTML { return &visibleHTML{w: w} }

// Write writes p, escaped; it reports len(p) written unless w failed.
func (v *visibleHTML) Write(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n := len(p)
	if len(v.held) > 0 {
		p = append(v.held, p...)
		v.held = nil
	}
	start := 0 // p[start:i] is to be written as it is
	var esc [6]byte
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '<':
			v.inTag = true
		case c == '>':
			v.inTag = false
		}
		// Only C0 controls, DEL and the first bytes of C1 controls
		// (0xC2) and of U+2028–U+202E, U+2066–U+2069 (0xE2) can start
		// a character that is shown escaped.
		if v.inTag || c >= 0x20 && c != 0x7f && c != 0xc2 && c != 0xe2 || c == '\n' || c == '\t' || c == '\r' {
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			v.held = append([]byte(nil), p[i:]...)
			v.write(p[start:i])
			return n, v.err
		}
		r, size := utf8.DecodeRune(p[i:])
		if visible.Control(r) {
			v.write(p[start:i])
			v.write(visible.AppendEscape(esc[:0], r))
			start = i + size
		}
		i += size
	}
	v.write(p[start:])
	return n, v.err
}

// Close writes what a last cut character held back.
func (v *visibleHTML) Close() error {
	if len(v.held) > 0 {
		v.write(v.held)
		v.held = nil
	}
	return v.err
}

func (v *visibleHTML) write(b []byte) {
	if v.err == nil && len(b) > 0 {
		_, v.err = v.w.Write(b)
	}
}
