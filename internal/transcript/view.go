package transcript

import (
	"strconv"
	"strings"
	"time"

	"github.com/grove-sessions/grove/internal/plural"
)

// The renderers share one view of a Doc: build decodes pi's format once into
// blocks of parts, and the Markdown and HTML writers only lay them out.

// style says how a span of inline text looks.
type style int

const (
	plain  style = iota
	code         // an identifier or value: `x`
	strong       // a word that matters: **x**
	badge        // a marker (label, "hidden"): small and boxed in HTML
	alarm        // an error marker: red in HTML, bold in Markdown
	ref          // an entry or tool call id: small
)

// span is a run of inline text. Text is never Markdown or HTML: the writers
// escape it.
type span struct {
	Text  string
	Style style
}

// line is a run of spans shown on one line.
type line []span

func txt(s string) span    { return span{clean(s), plain} }
func codeS(s string) span  { return span{clean(s), code} }
func bold(s string) span   { return span{clean(s), strong} }
func badgeS(s string) span { return span{clean(s), badge} }
func alarmS(s string) span { return span{clean(s), alarm} }
func refS(s string) span   { return span{clean(s), ref} }

// partKind is the shape of a part of a block.
type partKind string

const (
	pMarkdown partKind = "md"    // Text is Markdown written by a person or a model
	pCode     partKind = "code"  // Text is shown verbatim in a code block (Lang: a highlighting hint)
	pFold     partKind = "fold"  // Parts folded under a summary (Caption): <details>
	pQuote    partKind = "quote" // Parts in a marked box headed by Caption
	pGroup    partKind = "group" // Parts under a caption line (a tool call)
	pLine     partKind = "line"  // Caption as a paragraph
	pImage    partKind = "image" // Image
)

// part is one piece of a block's body.
type part struct {
	Kind    partKind
	Caption line
	Lang    string
	Text    string
	Parts   []part
	Image   image
}

func mdPart(s string) part               { return part{Kind: pMarkdown, Text: lf(s)} }
func codePart(lang, s string) part       { return part{Kind: pCode, Lang: lang, Text: lf(s)} }
func linePart(spans ...span) part        { return part{Kind: pLine, Caption: spans} }
func foldPart(sum line, ps ...part) part { return part{Kind: pFold, Caption: sum, Parts: ps} }

// lf cleans s and turns CRLF and lone CR into LF: CommonMark ends a line at
// any of the three, and a quoted block must prefix every line it has.
func lf(s string) string {
	s = clean(s)
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// captioned returns p with a small caption above it.
func captioned(p part, spans ...span) part {
	p.Caption = spans
	return p
}

// jsonFold is raw JSON pretty-printed and folded under summary.
func jsonFold(summary string, raw []byte) part {
	return foldPart(line{txt(summary)}, codePart("json", pretty(raw)))
}

// block is one entry of the path.
type block struct {
	ID     string // the entry id, for anchors
	Kind   string // user, assistant, tool, shell, custom, summary, note, unknown: the colour in HTML
	Title  line
	Meta   []line // time, id, label, model...: small
	Note   bool   // a one-line note: Title and Meta on one line
	Error  bool   // something failed here: marked in red
	Parts  []part
	Target string // label and context_edit entries: the entry they name, when it is on the path
}

// fact is one row of the facts block at the top.
type fact struct {
	Name  string
	Value line
}

// view is what a transcript shows.
type view struct {
	Title  string
	Facts  []fact
	Blocks []block
}

// timeFormat is the transcripts' clock: UTC, to the second.
const timeFormat = "2006-01-02 15:04:05 UTC"

func utc(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// stamp formats ms (Unix milliseconds) for a reader.
func stamp(ms int64) string { return utc(ms).Format(timeFormat) }

// span formats the time between the earliest and latest known entry times.
func timeSpan(entries []Entry) line {
	var lo, hi int64
	seen := false
	for _, e := range entries {
		if e.TimestampMs == nil {
			continue
		}
		t := *e.TimestampMs
		if !seen || t < lo {
			lo = t
		}
		if !seen || t > hi {
			hi = t
		}
		seen = true
	}
	if !seen {
		return line{txt("unknown")}
	}
	now := time.Now()
	if !plausible(lo, now) || !plausible(hi, now) {
		// A year-9999 (or 1970) stamp makes a span of nonsense, or one
		// beyond what a time.Duration holds.
		return line{txt(stamp(lo) + " → " + stamp(hi) + " (duration unknown)")}
	}
	d := utc(hi).Sub(utc(lo)).Round(time.Second)
	return line{txt(stamp(lo) + " → " + stamp(hi) + " (" + d.String() + ")")}
}

// earliestPlausible is the earliest time (Unix milliseconds) a session
// entry can truly have been written at: 1990-01-01 UTC.
const earliestPlausible = 631152000000

// plausible reports whether ms (Unix milliseconds) can be when an entry was
// written: from 1990 to a day after now. A duration or age computed from
// any other time is shown as unknown, not as a duration of decades.
func plausible(ms int64, now time.Time) bool {
	return ms >= earliestPlausible && ms <= now.Add(24*time.Hour).UnixMilli()
}

// build turns d into the view both writers lay out, every block at once
// (the writers make one block at a time: see each).
func build(d Doc) view {
	b, _ := newBuilder(d) // d.Line unset: no error
	v := titleView(d, b)
	_ = eachBlock(d, b, func(blk block) error {
		v.Blocks = append(v.Blocks, blk)
		return nil
	})
	return v
}

// titleView is d's view without its blocks: the title and the facts. b
// says which entries are not shown.
func titleView(d Doc, b *builder) view {
	v := view{Title: d.Name}
	if v.Title == "" {
		v.Title = "Session " + d.SessionID
	}
	v.Title = clean(v.Title)
	dialect := d.Dialect
	if d.Version > 0 {
		dialect += " v" + strconv.Itoa(d.Version)
	}
	messages := 0
	for _, e := range d.Entries {
		if isMessage(d.Dialect, e) {
			messages++
		}
	}
	count := plural.Count(len(d.Entries), "entry", "entries") + ", " + plural.Count(messages, "message", "messages")
	if b.hidden > 0 {
		count += " (" + strconv.Itoa(b.hidden) + " not shown: Codex's copies of messages, token counts, repeated turn contexts)"
	}
	v.Facts = []fact{
		{"Session", line{codeS(d.SessionID)}},
		{"Workspace", line{codeS(d.Workspace)}},
		{"File", line{codeS(d.Path)}},
		{"Dialect", line{txt(dialect)}},
		{"Leaf", line{codeS(d.Leaf)}},
		{"Path", line{txt(count)}},
		{"Time", timeSpan(d.Entries)},
	}
	for i, f := range v.Facts {
		if len(f.Value) == 1 && f.Value[0].Text == "" {
			v.Facts[i].Value = line{txt("(none)")}
		}
	}
	return v
}

// eachBlock makes the blocks of d's entries that b shows in order (b is
// newBuilder(d)) and hands each to
// out, keeping only that one: a 25 MB text is live while it is written,
// not for the whole document (SPEC §2.8). With d.Release, each entry's Raw
// is dropped from d.Entries once its block is made; with d.Line, each line
// is read as its block is made and let go after out. It stops at out's
// first error, or at d.Line's, returned as a lineError.
func eachBlock(d Doc, b *builder, out func(block) error) error {
	return eachBlockIn(d, b, 0, len(d.Entries), func(_ int, blk block) error { return out(blk) })
}

// eachBlockIn is eachBlock for the entries d.Entries[from:to] only,
// handing out each block with its entry's index; the lines of the others
// are not read.
func eachBlockIn(d Doc, b *builder, from, to int, out func(i int, blk block) error) error {
	for i := from; i < to; i++ {
		if !b.shown(i) {
			if d.Release {
				d.Entries[i].Raw = nil
			}
			continue
		}
		e := d.Entries[i]
		raw, err := d.raw(i)
		if err != nil {
			return lineError{err}
		}
		e.Raw = raw
		blk := b.entry(e)
		if d.Release {
			d.Entries[i].Raw = nil
		}
		if err := out(i, blk); err != nil {
			return err
		}
	}
	return nil
}

// lineError is an error of Doc.Line, told apart from the writer's.
type lineError struct{ err error }

func (e lineError) Error() string { return e.err.Error() }
func (e lineError) Unwrap() error { return e.err }

// isMessage reports whether e is a message of a session in dialect d, for
// the count in the facts: a pi or plain entry of type "message", every
// messages-log entry, a Claude user or assistant line, a Codex
// response_item message or event_msg message of its own (jsonl/dialect.go).
func isMessage(d string, e Entry) bool {
	switch d {
	case "messages":
		return true
	case "claude":
		return e.Type == "user" || e.Type == "assistant"
	case "codex":
		switch e.Role {
		case "user", "assistant":
			return e.Type == "response_item" || e.Type == "event_msg"
		case "developer", "system":
			return e.Type == "response_item"
		}
		return false
	}
	return e.Type == "message"
}
