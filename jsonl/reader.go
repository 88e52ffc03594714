package jsonl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/grove-sessions/grove/errs"
)

// Mode chooses what a bad line does to a read (SPEC §2.6).
type Mode int

const (
	// Salvage turns every bad line into a diagnostic and keeps the good
	// entries. The index reads this way.
	Salvage Mode = iota
	// Strict fails the whole read at the first bad line, with its physical
	// line number. A writer opening a file reads this way.
	Strict
)

// State is the condition of a session file (SPEC §6, §8).
type State string

const (
	StateOK          State = "ok"
	StateNeedsRepair State = "needs-repair" // an unterminated tail
	StateDamaged     State = "damaged"      // bad lines (or, in the index, duplicate ids)
)

// Options configure a Read.
type Options struct {
	Context context.Context // when set and done, the read stops with its error
	Path    string          // the file's name, used in errors and as a plain session's id
	Mode    Mode
	KeepRaw bool // give each Entry its own copy of Raw; otherwise Raw is only valid during the callback
	// Diagnostic, when set, receives every bad line (Salvage) and warning
	// as it is found, in file order, instead of Result.Errors and
	// Result.Warnings keeping them: a file of a million bad lines then
	// costs no memory. Result.State and HasTail still count them.
	Diagnostic func(*errs.Error)
	// Where is the dialect the caller knows from the file's location (a
	// Claude Code projects root it was asked to read), for a file with no
	// parseable committed line; "" leaves it to DialectAt (SPEC §3).
	Where Dialect
	// Decided, when set, is called once with the file's dialect as soon as
	// it is known: before the first entry reaches the callback.
	Decided func(Dialect)
}

// Result is what a read found besides the entries (SPEC §8 `recover`).
type Result struct {
	Path      string
	Dialect   Dialect
	Header    *Header     // the pi or codex header; nil for the other dialects or when the header was bad
	Claude    *ClaudeMeta // what a Claude Code file's lines say of its session; nil for other dialects
	Lines     int         // committed lines, blank ones included
	Entries   int         // entries kept
	Committed int64       // bytes of the committed prefix: the offset just after the last LF
	Size      int64       // bytes read in all, tail included
	Warnings  []*errs.Error
	Errors    []*errs.Error // bad lines, in file order (Salvage only)
	// Resumable is true when a later read of the same file, grown by
	// appending, may go on at Committed with ReadFrom and see what a read
	// from byte 0 would see: a committed line decided the dialect, no
	// oh-my-pi title line was pending, and the file is plain or pi version
	// 2 or later with a usable header (version 1 ids come from line
	// numbers, SPEC §3.2), or of the messages, claude or codex dialect
	// (whose L<line> ids go on from Resume.Prev).
	Resumable bool
	// Last is the id of the last entry read ("" when none): where a
	// chained dialect's next entry hangs (Resume.Prev).
	Last string

	errs int   // bad lines passed to Options.Diagnostic
	tail bool  // an unterminated tail passed to Options.Diagnostic
	turn int64 // codex: the byte offset where the last turn starts (Resume.Turn)
}

// State is ok, needs-repair (an unterminated tail) or damaged (bad lines,
// which win over a tail), as SPEC §8 `recover` defines it.
func (r *Result) State() State {
	switch {
	case len(r.Errors) > 0 || r.errs > 0:
		return StateDamaged
	case r.HasTail():
		return StateNeedsRepair
	}
	return StateOK
}

// Read streams the committed lines of r, decides the dialect from the first
// parseable one (SPEC §3), and calls fn for every entry in file order. It
// never changes the file (§2.7). Memory does not grow with the number of
// lines, only with the longest line (§2.8), except that a pi version 1 file
// remembers one id per line to map firstKeptEntryIndex (§3.2) and a Codex
// file one small record per event and reply of the turn being read. A
// Codex event whose reply comes after it is paired by reading ahead
// through r's ReadAt (codex_pair.go): from an r without ReadAt and Seek,
// such an event, and one with no reply, is taken for a copy.
//
// An error from fn stops the read and is returned as is. In Strict mode the
// first bad line stops it with an *errs.Error of Code bad_line.
//
// A first line that decides no dialect is settled by reading ahead through
// the same ReadAt (SPEC §3); from an r without ReadAt and Seek, by where
// the file is.
func Read(r io.Reader, opts Options, fn func(Entry) error) (*Result, error) {
	return newParser(opts, fn).run(r)
}

func newParser(opts Options, fn func(Entry) error) *parser {
	return &parser{opts: opts, res: &Result{Path: opts.Path}, fn: fn, end: -1}
}

// run reads r through p's rules; see Read. A reader with ReadAt and Seek
// is also what a Codex turn is read ahead from (codex_pair.go).
func (p *parser) run(r io.Reader) (*Result, error) {
	ra, isRA := r.(io.ReaderAt)
	sk, isSeeker := r.(io.Seeker)
	if isRA && isSeeker {
		if pos, err := sk.Seek(0, io.SeekCurrent); err == nil {
			p.at, p.atBase = ra, -pos
		}
	}
	return p.runAt(r, 0)
}

// runAt is run for r positioned at byte base of the file, on the first byte
// of physical line p.res.Lines+1.
func (p *parser) runAt(r io.Reader, base int64) (*Result, error) {
	opts := p.opts
	sc := NewScannerAt(r, base, p.res.Lines+1)
	for sc.Scan() {
		l := sc.Line()
		if !l.Committed {
			if !l.Blank() {
				p.warning(tailWarning(opts.Path, int64(len(l.Bytes)+l.Skip), l.Num, l.Offset))
			}
			break
		}
		if opts.Context != nil && l.Num%1024 == 0 {
			if err := opts.Context.Err(); err != nil {
				return p.res, err
			}
		}
		p.res.Lines = l.Num
		p.res.Committed = l.Offset + int64(l.Skip+len(l.Bytes)) + 1
		if err := p.line(l); err != nil {
			p.res.Size = sc.Offset()
			return p.res, err
		}
		if p.res.Dialect == Codex {
			p.turn.passed(l)
		}
	}
	p.res.Size = sc.Offset()
	if err := sc.Err(); err != nil {
		return p.res, errs.Wrap(errs.CodeIO, err, "read session file").In(opts.Path).At(0, sc.Offset())
	}
	// Decided before a pending title line is settled: a title line that
	// ends the committed prefix may yet turn out to precede a header.
	switch p.res.Dialect {
	case Plain, Messages, Claude:
		p.res.Resumable = p.decided && p.sure && p.title == nil
	case Codex:
		// A last turn with an event decided by kind alone, or left over,
		// may be decided otherwise once a line is appended to it.
		p.res.Resumable = p.decided && p.sure && p.title == nil && !p.turn.loose
		p.res.turn = p.turn.start
	case Pi:
		p.res.Resumable = p.decided && p.title == nil && (p.res.Header != nil || p.resumed) && p.version >= 2
	}
	if err := p.flushTitle(); err != nil {
		return p.res, err
	}
	if p.res.Dialect == "" {
		p.res.Dialect = p.opts.Where
		if p.res.Dialect == "" {
			p.res.Dialect = DialectAt(p.opts.Path)
		}
	}
	if p.res.Dialect != Pi {
		p.res.Last = p.prevID
	}
	return p.res, nil
}

// pendingLine is an oh-my-pi title line kept until the next line says
// whether it precedes a pi header. Its bytes are a copy: the Scanner reuses
// its buffer.
type pendingLine struct {
	l Line
}

type parser struct {
	opts    Options
	res     *Result
	fn      func(Entry) error
	decided bool
	// sure is true when a line decided the dialect (SPEC §3), false when
	// it came from where the file is: a later line could then decide
	// otherwise, so the read cannot be resumed.
	sure     bool
	resumed  bool         // ReadFrom: the header was read by an earlier read
	title    *pendingLine // an oh-my-pi title line waiting for the header
	version  int
	rules    Rules    // the dialect's, once decided
	told     bool     // Options.Decided was called
	headerMs int64    // codex: the header's time, for legacy items without one
	prevID   string   // pi v1, messages, codex: the previous entry's id (claude, plain: the last entry's)
	v1IDs    []string // pi v1: entry id per parsed line, header at 0 ("" for non-entries)
	// lone is the index of the first escaped lone surrogate of line
	// loneLine, or -1 (SPEC §2.9), as parseLine found it.
	lone, loneLine int
	// codex: the turn being read, and where it can be read again from:
	// file offset x is at's byte x-atBase; end is where the committed
	// lines p reads end (-1: at the end of at). at is nil when the reader
	// has no ReadAt and Seek.
	turn   codexTurn
	ahead  codexAhead
	at     io.ReaderAt
	atBase int64
	end    int64
}

// bad records a bad line; in Strict mode it returns the error.
func (p *parser) bad(l Line, format string, args ...any) error {
	e := errs.New(errs.CodeBadLine, fmt.Sprintf(format, args...)).In(p.opts.Path).At(l.Num, l.Offset)
	if p.opts.Mode == Strict {
		return e
	}
	if p.opts.Diagnostic != nil {
		p.res.errs++
		p.opts.Diagnostic(e)
		return nil
	}
	p.res.Errors = append(p.res.Errors, e)
	return nil
}

func (p *parser) warn(l Line, code errs.Code, format string, args ...any) {
	p.warning(errs.New(code, fmt.Sprintf(format, args...)).In(p.opts.Path).At(l.Num, l.Offset))
}

// warning keeps w in Result.Warnings or passes it to Options.Diagnostic.
func (p *parser) warning(w *errs.Error) {
	if p.opts.Diagnostic == nil {
		p.res.Warnings = append(p.res.Warnings, w)
		return
	}
	if w.Code == errs.CodeUnterminatedTail {
		p.res.tail = true
	}
	p.opts.Diagnostic(w)
}

func (p *parser) line(l Line) error {
	if l.Blank() {
		return nil
	}
	o, lone, why := parseLine(l.Bytes)
	p.lone, p.loneLine = lone, l.Num
	if why != "" {
		// An oh-my-pi title line counts only when the very next non-blank
		// line is the header; settle it first so lines stay in file order.
		if err := p.flushTitle(); err != nil {
			return err
		}
		return p.bad(l, "%s", why)
	}
	if p.version == 1 {
		p.v1IDs = append(p.v1IDs, "")
	}
	typ, _ := optString(o, "type", "")
	if !p.decided {
		if p.title == nil && typ == "title" {
			p.title = &pendingLine{l: cloneLine(l)}
			return nil
		}
		p.decided = true
		if typ == "session" {
			p.res.Dialect, p.rules = Pi, piRules{}
			p.title = nil // an oh-my-pi title line before the header is no entry
			return p.header(l, o)
		}
		p.sure = true
		if p.title != nil {
			p.res.Dialect, p.rules = Plain, plainRules{}
			if err := p.flushTitle(); err != nil {
				return err
			}
		} else {
			d, decisive := classify(o, typ)
			if !decisive {
				d, decisive = p.undecided(l)
			}
			p.res.Dialect, p.sure = d, decisive
			p.rules = RulesOf(p.res.Dialect)
		}
	}
	if p.rules == nil { // decided by the caller (a MemStore is plain)
		p.rules = RulesOf(p.res.Dialect)
	}
	p.tell()
	return p.rules.read(p, l, o, typ)
}

// undecided is the dialect of a file whose first parseable committed line
// l decides none (SPEC §3): the first later line that decides one, else
// where the file was found (Options.Where, DialectAt), else plain. The
// second result says whether a line decided it.
func (p *parser) undecided(l Line) (Dialect, bool) {
	if d := p.decideAhead(l); d != "" {
		return d, true
	}
	if p.opts.Where != "" {
		return p.opts.Where, false
	}
	if p.opts.Path != "" {
		return DialectAt(p.opts.Path), false
	}
	return Plain, false
}

// flushTitle handles a pending title line that turned out not to precede a
// pi header: the file is plain and the line is read as a plain entry.
func (p *parser) flushTitle() error {
	if p.title == nil {
		return nil
	}
	t := p.title
	p.title = nil
	p.decided = true
	p.res.Dialect, p.rules = Plain, plainRules{}
	p.tell()
	o, _ := parseObject(t.l.Bytes) // it parsed before
	return p.plainEntry(t.l, o)
}

// tell passes the decided dialect to Options.Decided, once.
func (p *parser) tell() {
	if !p.told && p.opts.Decided != nil {
		p.told = true
		p.opts.Decided(p.res.Dialect)
	}
}

func cloneLine(l Line) Line {
	l.Bytes = append([]byte(nil), l.Bytes...)
	return l
}

func (p *parser) emit(l Line, e Entry) error {
	e.Line = l.Num
	e.Offset = l.BodyOffset()
	e.Length = len(l.Bytes)
	p.surrogates(l)
	if p.opts.KeepRaw {
		e.Raw = append(json.RawMessage(nil), l.Bytes...)
	} else {
		e.Raw = l.Bytes
	}
	p.res.Entries++
	if p.res.Dialect != Pi {
		p.prevID = e.ID
	}
	if p.fn == nil {
		return nil
	}
	return p.fn(e)
}
