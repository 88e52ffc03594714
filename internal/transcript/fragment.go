package transcript

import (
	"bufio"
	"errors"
	"html/template"
	"io"

	"github.com/grove-sessions/grove/internal/iox"
)

// Fragment says which entries HTMLFragment shows and how.
type Fragment struct {
	// From and To bound the entries shown: Doc.Entries[From:To]. To 0
	// means to the end. The lines of the entries outside are not read
	// (a tool result whose call is before From is titled without the
	// call's name).
	From, To int
	// Anchor prefixes each block's id attribute and the in-page links to
	// it: "e-" (export's) when empty.
	Anchor string
	// After, when set, gives markup written after entry i's block (i
	// indexes Doc.Entries), also after an entry that gets no block (such
	// an entry gets an empty <a class="unshown"> with its anchor id).
	// It is written as it is: the caller escapes what it holds.
	After func(i int) template.HTML
}

// HTMLFragment writes the blocks of d's entries f.From to f.To as an HTML
// fragment: the sections and notes HTML's page holds between its facts
// and its end, with no page, title, facts or style around them (grove
// serve's transcript page, which links Stylesheet). Values are escaped as
// in HTML. Errors: w's and d.Line's.
func HTMLFragment(w io.Writer, d Doc, f Fragment) error {
	to := f.To
	if to <= 0 || to > len(d.Entries) {
		to = len(d.Entries)
	}
	from := min(max(f.From, 0), to)
	ew := &iox.StickyWriter{W: w}
	b := bufio.NewWriterSize(ew, 64<<10)
	sp := newImageSplicer(b)
	bd, err := newBuilder(d)
	if err != nil {
		return err
	}
	prefix := f.Anchor
	if prefix == "" {
		prefix = "e-"
	}
	t, err := page().Clone()
	if err == nil {
		t = t.Funcs(template.FuncMap{"image": sp.view, "md": sp.md, "anchor": func(id string) string { return prefix + id }})
		next := from // the next entry whose After is due
		after := func(upto int) {
			for ; next < upto; next++ {
				if !bd.shown(next) {
					// An entry the page does not show (a Codex copy, a
					// token count) still has its anchor, so a link to
					// it lands where it is.
					sp.Write([]byte(`<a class="unshown" id="` + template.HTMLEscapeString(prefix+clean(d.Entries[next].ID)) + `"></a>`))
				}
				if f.After != nil {
					if h := f.After(next); h != "" {
						sp.Write([]byte(h))
					}
				}
			}
		}
		err = eachBlockIn(d, bd, from, to, func(i int, blk block) error {
			if ew.Err != nil {
				return ew.Err
			}
			after(i)
			if err := t.ExecuteTemplate(sp, "block", blk); err != nil {
				return err
			}
			after(i + 1)
			return nil
		})
		if err == nil {
			after(to)
		}
		var le lineError
		if errors.As(err, &le) {
			return le.err
		}
	}
	return htmlDone(ew, b, err)
}

// Stylesheet is the CSS of HTML's page, for a page that links it
// instead of holding it inline (a strict Content-Security-Policy forbids
// inline style).
func Stylesheet() string { return css }
