package transcript

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"

	"github.com/grove-sessions/grove/internal/iox"
)

// Doc is one path of a session: what a transcript shows.
type Doc struct {
	SessionID string
	Name      string // pi session name ("" if none)
	Workspace string
	Path      string  // the session file
	Dialect   string  // "pi", "plain", "messages", "claude" or "codex" (jsonl.Dialect); another is read as pi
	Version   int     // pi version (1..3), 0 for the other dialects
	Leaf      string  // id of the leaf the path ends at
	Entries   []Entry // the path, root first
	// Release lets Markdown and HTML drop each entry's Raw (set it to nil
	// in Entries) once the entry is shown, so a 50 MB line is not held
	// for the rest of the document (SPEC §2.8). The caller then holds no
	// other reference to the lines, and renders d once.
	Release bool
	// Line, when set, gives the committed line of Entries[i] whose Raw is
	// nil: Markdown and HTML ask for each line when its block is made (a
	// Codex turn_context's once more, before the first block) and hold it
	// only while that block is written, so no more than one entry's line
	// is held at a time (SPEC §2.8). Its first error stops the document
	// where it is and is returned.
	Line func(i int) (json.RawMessage, error)
}

// raw is the committed line of d.Entries[i]: its Raw, or d.Line's answer
// when Raw is nil and Line is set.
func (d Doc) raw(i int) (json.RawMessage, error) {
	if r := d.Entries[i].Raw; r != nil || d.Line == nil {
		return r, nil
	}
	return d.Line(i)
}

// Entry is one entry of the path.
type Entry struct {
	ID          string
	Type        string          // pi and plain: "message", "metadata", "compaction", "branch_summary", "custom_message", "custom", "label", "session_info", "model_change", "thinking_level_change", or an unknown type; messages, claude, codex: as jsonl/dialect.go says
	Role        string          // message.role for type "message"; claude, codex: as jsonl/dialect.go says
	TimestampMs *int64          // entry time in Unix ms, nil if unknown
	Label       string          // pi label on this entry ("" if none)
	Edited      string          // pi 1.x: "replaced" or "removed" when a context_edit on the path changed what the model sees of this entry at the leaf; "" if none
	FirstKept   string          // compaction: firstKeptEntryId as grove resolved it (pi version 1: from firstKeptEntryIndex, SPEC §3.2); "" if none
	Raw         json.RawMessage // the committed line, exactly as in the file (a JSON object)
}

// Markdown writes d to w as a Markdown transcript (CommonMark with GitHub's
// <details> and <sub>): a title, a facts block, then every entry of the path
// in order. Tool output and JSON go in fenced code blocks whose fences are
// longer than any backtick run inside; thinking is folded; image data is
// replaced by a note of its type and size. Any Doc renders, however
// malformed its entries' Raw; the only errors are w's and d.Line's.
func Markdown(w io.Writer, d Doc) error {
	// Written as it is made, not gathered first: a 25 MB message then
	// costs its text once, not twice more in a buffer (SPEC §2.8).
	ew := &iox.StickyWriter{W: w}
	b := bufio.NewWriterSize(ew, 64<<10)
	bd, err := newBuilder(d)
	if err != nil {
		return err
	}
	writeHead(b, titleView(d, bd))
	if err := eachBlock(d, bd, func(blk block) error {
		mdBlock(b, blk)
		return ew.Err
	}); err != nil && ew.Err == nil {
		return errors.Unwrap(err) // d.Line's
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write markdown transcript: %w", err)
	}
	return nil
}

// HTML writes d to w as one self-contained HTML page (inline CSS, no script,
// no external resource; PNG, JPEG, GIF and WebP images embedded as data
// URLs) with the same content as Markdown. Every value is escaped by
// html/template, and message Markdown is rendered by goldmark without raw
// HTML. Any Doc renders; the only errors are w's and d.Line's.
func HTML(w io.Writer, d Doc) error {
	// Executed straight into a buffered writer (SPEC §2.8); a template
	// error is a bug, a write error w's.
	ew := &iox.StickyWriter{W: w}
	b := bufio.NewWriterSize(ew, 64<<10)
	sp := newImageSplicer(b)
	bd, err := newBuilder(d)
	if err != nil {
		return err
	}
	t, err := page().Clone()
	if err == nil {
		// One block at a time (SPEC §2.8), byte for byte what page
		// makes of the whole view.
		t = t.Funcs(template.FuncMap{"image": sp.view, "md": sp.md})
		err = t.ExecuteTemplate(sp, "head", titleView(d, bd))
	}
	if err == nil {
		err = eachBlock(d, bd, func(blk block) error {
			if ew.Err != nil {
				return ew.Err
			}
			return t.ExecuteTemplate(sp, "block", blk)
		})
		var le lineError
		if errors.As(err, &le) {
			return le.err
		}
	}
	if err == nil {
		err = t.ExecuteTemplate(sp, "foot", nil)
	}
	return htmlDone(ew, b, err)
}

// htmlDone ends an HTML document made through b into ew: b flushed when
// err (the rendering's) is nil; ew's error first, as the write's, then
// err as the rendering's.
func htmlDone(ew *iox.StickyWriter, b *bufio.Writer, err error) error {
	if err == nil {
		err = b.Flush()
	}
	if ew.Err != nil {
		return fmt.Errorf("write html transcript: %w", ew.Err)
	}
	if err != nil {
		return fmt.Errorf("render html transcript: %w", err)
	}
	return nil
}
