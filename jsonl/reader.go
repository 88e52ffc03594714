package jsonl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

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

// maxSafeInt is 2^53−1, the largest integer a JSON number holds exactly.
const maxSafeInt = 1<<53 - 1

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

	errs int  // bad lines passed to Options.Diagnostic
	tail bool // an unterminated tail passed to Options.Diagnostic
}

// Resume is where an earlier read of a file stopped, so that a read of the
// same file grown by appending can go on from there (a refresh reads only
// what was appended: README "Keeping the index current"). Take it from a
// Result whose Resumable is true.
type Resume struct {
	Offset  int64   // bytes: the earlier read's Committed, where the next line starts
	Lines   int     // committed lines before Offset, blank ones included
	Dialect Dialect // the dialect the earlier read decided
	Version int     // the pi header version (0 for plain)
	// Prev is the id of the last entry before Offset: the parent of the
	// next entry of a dialect whose ids are L<line> in one chain (messages,
	// codex; SPEC §3.5, §3.6). "" when there is none.
	Prev string
	// HeaderMs is the header's time in Unix milliseconds (0 when none): a
	// legacy Codex item has no time of its own and takes it.
	HeaderMs int64
}

// ResumeAt is the Resume that continues after res (whose Resumable must be
// true), with the header version read from the file's beginning.
func (r *Result) ResumeAt() Resume {
	v := 0
	if r.Header != nil {
		v = r.Header.Version
	}
	var ms int64
	if r.Header != nil {
		ms = r.Header.Timestamp
	}
	return Resume{Offset: r.Committed, Lines: r.Lines, Dialect: r.Dialect, Version: v, Prev: r.Last, HeaderMs: ms}
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

// HasTail reports whether the file ends in an unterminated tail (§2.5).
func (r *Result) HasTail() bool {
	if r.tail {
		return true
	}
	for _, w := range r.Warnings {
		if w.Code == errs.CodeUnterminatedTail {
			return true
		}
	}
	return false
}

// ReadFile reads the session file at path and returns its entries, each with
// its own Raw (SPEC §2, §3). In Strict mode the first bad line is returned
// as an *Error with Code bad_line; an OS error, or a path that is not a
// regular file, is an *Error with Code io_error.
func ReadFile(path string, mode Mode) ([]Entry, *Result, error) {
	f, size, err := OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var entries []Entry
	res, err := ReadOpen(f, size, Options{Path: path, Mode: mode, KeepRaw: true}, func(e Entry) error {
		entries = append(entries, e)
		return nil
	})
	return entries, res, err
}

// NotRegular says what a file of mode m is that is not a regular file, in
// words and with its whole mode as ls shows it, permission bits included:
// "not a regular file but a directory (drwxr-x---)", "... a FIFO
// (prw-r--r--)".
func NotRegular(m fs.FileMode) string {
	kind, letter := "a special file", "?"
	switch {
	case m.IsDir():
		kind, letter = "a directory", "d"
	case m&fs.ModeSymlink != 0:
		kind, letter = "a symbolic link", "l"
	case m&fs.ModeNamedPipe != 0:
		kind, letter = "a FIFO", "p"
	case m&fs.ModeCharDevice != 0:
		kind, letter = "a character device", "c"
	case m&fs.ModeDevice != 0:
		kind, letter = "a block device", "b"
	case m&fs.ModeSocket != 0:
		kind, letter = "a socket", "s"
	}
	return "not a regular file but " + kind + " (" + letter + m.Perm().String()[1:] + ")"
}

// OpenFile opens the session file at path for reading and returns it with
// its size in bytes. Only a regular file (or a symlink to one) is opened: a
// FIFO, device or directory would block or never end, so it is an io_error.
func OpenFile(path string) (*os.File, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, errs.Wrap(errs.CodeIO, err, "cannot read session file: "+osReason(err)).In(path)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, errs.New(errs.CodeIO, NotRegular(fi.Mode())+"; session files are plain files").In(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, errs.Wrap(errs.CodeIO, err, "cannot read session file: "+osReason(err)).In(path)
	}
	return f, fi.Size(), nil
}

// osReason is the operating system's reason without the repeated path.
func osReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// tailChunk is how much of a file's end is read at a time when looking for
// its last LF, in bytes.
const tailChunk = 64 << 10

// ReadOpen reads the regular file f of size bytes like Read, except that the
// tail (the bytes after the last LF, SPEC §2.5) is found by reading
// backwards from the end and checked in chunks of tailChunk bytes: it is
// never held in memory, however large. Only the committed prefix is
// streamed through the dialect rules.
func ReadOpen(f *os.File, size int64, opts Options, fn func(Entry) error) (*Result, error) {
	return newParser(opts, fn).runFile(f, 0, size)
}

// ReadFrom reads the file r of size bytes from from.Offset on, as a read
// from byte 0 would see those lines: line numbers and byte offsets are the
// file's, the dialect and pi version are from's, a second pi header is an
// extra_header warning. Only the bytes from from.Offset to size are read
// (the tail, as in ReadOpen, backwards in chunks). The Result counts lines
// and the committed length from the file's start, but Entries, Errors and
// Warnings only for what was read; its Header is nil. The caller must know
// that the bytes before from.Offset are those of the earlier read (the
// index keeps fingerprints of them). The zero Resume reads from byte 0,
// exactly as ReadOpen. Errors are those of ReadOpen.
func ReadFrom(r io.ReaderAt, size int64, from Resume, opts Options, fn func(Entry) error) (*Result, error) {
	p := newParser(opts, fn)
	if from == (Resume{}) {
		return p.runFile(r, 0, size)
	}
	p.decided, p.resumed, p.version = true, true, from.Version
	p.res.Dialect, p.res.Lines, p.res.Committed = from.Dialect, from.Lines, from.Offset
	p.rules, p.prevID, p.headerMs = RulesOf(from.Dialect), from.Prev, from.HeaderMs
	p.tell()
	return p.runFile(r, from.Offset, size)
}

// runFile reads the lines of r from byte base (the start of physical line
// p.res.Lines+1) to size with p's rules.
func (p *parser) runFile(r io.ReaderAt, base, size int64) (*Result, error) {
	opts := p.opts
	committed, tailBlank, err := findTail(r, base, size)
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "read session file: "+osReason(err)).In(opts.Path)
	}
	res, err := p.runAt(io.NewSectionReader(r, base, committed-base), base)
	if err != nil {
		return res, err
	}
	res.Size = size
	if size > committed && !tailBlank {
		p.warning(errs.New(errs.CodeUnterminatedTail, fmt.Sprintf("unterminated tail of %d bytes: not a committed line, never parsed", size-committed)).In(opts.Path).At(res.Lines+1, committed).WithHint("the last append was cut short; `grove repair` truncates the file to its committed prefix"))
	}
	return res, nil
}

// findTail returns the offset just after the last LF of f at or after
// byte base (base when there is none) and whether the bytes after it are
// JSON whitespace only (a BOM at byte 0 counts as nothing, SPEC §2.2).
func findTail(f io.ReaderAt, base, size int64) (committed int64, blank bool, err error) {
	buf := make([]byte, min(tailChunk+int64(len(bom)), max(size-base, 0)))
	blank = true
	var start int64
	for end := size; end > base; end = start {
		start = max(end-tailChunk, base)
		if start < int64(len(bom)) { // keep a BOM in one chunk
			start = base
		}
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
			return 0, false, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return start + int64(i) + 1, blank && isBlank(chunk[i+1:]), nil
		}
		if start == 0 {
			chunk = bytes.TrimPrefix(chunk, bom)
		}
		blank = blank && isBlank(chunk)
	}
	return base, blank, nil
}

// Read streams the committed lines of r, decides the dialect from the first
// parseable one (SPEC §3), and calls fn for every entry in file order. It
// never changes the file (§2.7). Memory does not grow with the number of
// lines, only with the longest line (§2.8), except that a pi version 1 file
// remembers one id per line to map firstKeptEntryIndex (§3.2).
//
// An error from fn stops the read and is returned as is. In Strict mode the
// first bad line stops it with an *Error of Code bad_line.
func Read(r io.Reader, opts Options, fn func(Entry) error) (*Result, error) {
	return newParser(opts, fn).run(r)
}

func newParser(opts Options, fn func(Entry) error) *parser {
	return &parser{opts: opts, res: &Result{Path: opts.Path}, fn: fn}
}

// run reads r through p's rules; see Read.
func (p *parser) run(r io.Reader) (*Result, error) { return p.runAt(r, 0) }

// runAt is run for r positioned at byte base of the file, on the first byte
// of physical line p.res.Lines+1.
func (p *parser) runAt(r io.Reader, base int64) (*Result, error) {
	opts := p.opts
	sc := NewScannerAt(r, base, p.res.Lines+1)
	for sc.Scan() {
		l := sc.Line()
		if !l.Committed {
			if !l.Blank() {
				p.warning(errs.New(errs.CodeUnterminatedTail, fmt.Sprintf("unterminated tail of %d bytes: not a committed line, never parsed", len(l.Bytes)+l.Skip)).In(opts.Path).At(l.Num, l.Offset).WithHint("the last append was cut short; `grove repair` truncates the file to its committed prefix"))
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
	}
	p.res.Size = sc.Offset()
	if err := sc.Err(); err != nil {
		return p.res, errs.Wrap(errs.CodeIO, err, "read session file").In(opts.Path).At(0, sc.Offset())
	}
	// Decided before a pending title line is settled: a title line that
	// ends the committed prefix may yet turn out to precede a header.
	switch p.res.Dialect {
	case Plain, Messages, Claude, Codex:
		p.res.Resumable = p.decided && p.title == nil
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
	opts     Options
	res      *Result
	fn       func(Entry) error
	decided  bool
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

// parseObject applies SPEC §2.4: valid UTF-8, one JSON object.
func parseObject(b []byte) (object, string) {
	o, _, why := parseLine(b)
	return o, why
}

// parseLine is parseObject that also gives the index in b of the first
// escaped lone surrogate (SPEC §2.9), or -1, which the JSON check finds on
// its way.
func parseLine(b []byte) (object, int, string) {
	if !utf8.Valid(b) {
		col := 0
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				col = i + 1
				break
			}
			i += n
		}
		return nil, -1, fmt.Sprintf("invalid UTF-8 at byte column %d", col)
	}
	if i := bytes.Index(b, bom); i >= 0 {
		return nil, -1, fmt.Sprintf("byte order mark at byte column %d (only allowed at byte 0 of the file)", i+1)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return nil, -1, fmt.Sprintf("NUL byte at byte column %d", i+1)
	}
	ok, lone := validJSONLone(b)
	if !ok {
		// Decode again only to learn where and why (encoding/json checks
		// validity before it decodes anything).
		var raw json.RawMessage
		err := json.Unmarshal(b, &raw)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, -1, fmt.Sprintf("invalid JSON at byte column %d: %s", se.Offset, se.Error())
		}
		return nil, -1, "invalid JSON"
	}
	switch k := jsonKind(b); k {
	case 'o':
	default:
		return nil, -1, fmt.Sprintf("JSON %s, want an object", strings.TrimPrefix(strings.TrimPrefix(kindNames[k], "a "), "an "))
	}
	o, err := decodeObject(b, "")
	if err != nil {
		return nil, -1, "unreadable JSON object"
	}
	return o, lone, ""
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
		if p.title != nil {
			p.res.Dialect, p.rules = Plain, plainRules{}
			if err := p.flushTitle(); err != nil {
				return err
			}
		} else {
			p.res.Dialect = classify(o, typ)
			p.rules = RulesOf(p.res.Dialect)
		}
	}
	if p.rules == nil { // decided by the caller (a MemStore is plain)
		p.rules = RulesOf(p.res.Dialect)
	}
	p.tell()
	return p.rules.read(p, l, o, typ)
}

func (piRules) read(p *parser, l Line, o object, typ string) error    { return p.piEntry(l, o, typ) }
func (plainRules) read(p *parser, l Line, o object, typ string) error { return p.plainEntry(l, o) }

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

func (p *parser) plainEntry(l Line, o object) error {
	id, err := wantString(o, "id", "")
	if err == nil && id == "" {
		err = fieldErr("id", "is empty")
	}
	if err != nil {
		return p.bad(l, "%s", err)
	}
	e := Entry{ID: id}
	if e.ParentID, e.Root, err = parentOf(o); err != nil {
		return p.bad(l, "%s", err)
	}
	ts, err := want(o, "timestamp", "", 'n')
	if err != nil {
		return p.bad(l, "%s", err)
	}
	f, perr := strconv.ParseFloat(string(ts), 64)
	if perr != nil {
		return p.bad(l, "timestamp: not a finite number")
	}
	// Milliseconds beyond ±(2^53−1) cannot survive a round trip through a
	// JSON number (SPEC §5) and would overflow int64 when converted.
	if f > maxSafeInt || f < -maxSafeInt {
		return p.bad(l, "timestamp: %s is outside ±(2^53−1) milliseconds", ts)
	}
	e.Timestamp, e.HasTime = int64(f), true
	if e.Type, err = wantString(o, "type", ""); err != nil {
		return p.bad(l, "%s", err)
	}
	switch e.Type {
	case "message":
		if e.Role, err = checkPlainMessage(o["message"]); err != nil {
			return p.bad(l, "%s", err)
		}
	case "metadata":
		if e.Key, err = wantString(o, "key", ""); err == nil && e.Key == "" {
			err = fieldErr("key", "is empty")
		}
		if err == nil {
			v, ok := o["value"]
			if !ok {
				err = fieldErr("value", "missing")
			} else if jsonKind(v) == 's' {
				_ = json.Unmarshal(v, &e.Value)
			}
		}
		if err != nil {
			return p.bad(l, "%s", err)
		}
	default:
		return p.bad(l, "type: is %q, want \"message\" or \"metadata\" (plain dialect, no header)", e.Type)
	}
	return p.emit(l, e)
}

// parentOf reads parentId: a string, or null for a root.
func parentOf(o object) (string, bool, *schemaError) {
	v, ok := o["parentId"]
	switch k := jsonKind(v); {
	case !ok:
		return "", false, fieldErr("parentId", "missing, want a string or null")
	case k == 'z':
		return "", true, nil
	case k == 's':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false, fieldErr("parentId", "unreadable string")
		}
		return s, false, nil
	default:
		return "", false, fieldErr("parentId", "is %s, want a string or null", kindNames[k])
	}
}

func (p *parser) header(l Line, o object) error {
	h := &Header{Line: l.Num, Offset: l.BodyOffset(), Version: 1}
	var err *schemaError
	if h.ID, err = wantString(o, "id", ""); err == nil && h.ID == "" {
		err = fieldErr("id", "is empty")
	}
	if err != nil {
		return p.bad(l, "session header: %s", err)
	}
	if v, ok := o["version"]; ok {
		n, perr := strconv.Atoi(string(bytes.TrimSpace(v)))
		if perr != nil || n < 1 {
			return p.bad(l, "session header: version: is %s, want a positive integer", v)
		}
		h.Version = n
	}
	if h.Version > 3 {
		p.warn(l, errs.CodeUnknownVersion, "pi session version %d is newer than 3; read as version 3", h.Version)
	}
	h.Cwd, _ = optString(o, "cwd", "")
	if h.ParentSession, _ = optString(o, "parentSession", ""); h.ParentSession == "" {
		h.ParentSession, _ = optString(o, "branchedFrom", "")
	}
	h.Timestamp, _ = parseISOTime(o["timestamp"])
	h.Raw = append(json.RawMessage(nil), l.Bytes...)
	p.surrogates(l)
	p.version = h.Version
	p.res.Header = h
	if p.version == 1 {
		p.v1IDs = append(p.v1IDs[:0], "") // the header is parsed line 0
	}
	return nil
}

func (p *parser) piEntry(l Line, o object, typ string) error {
	if typ == "session" {
		if p.res.Header == nil && !p.resumed { // the first header was bad; take this one
			return p.header(l, o)
		}
		p.warn(l, errs.CodeExtraHeader, "a second session header is ignored")
		return nil
	}
	if p.version == 0 { // no usable header: read as version 3
		p.version = 3
	}
	if _, err := wantString(o, "type", ""); err != nil {
		return p.bad(l, "%s", err)
	}
	e := Entry{Type: typ}
	var err *schemaError
	if p.version == 1 {
		e.ID = "L" + strconv.Itoa(l.Num)
		e.ParentID, e.Root = p.prevID, p.prevID == ""
	} else {
		if e.ID, err = wantString(o, "id", ""); err == nil && e.ID == "" {
			err = fieldErr("id", "is empty")
		}
		if err == nil {
			e.ParentID, e.Root, err = parentOf(o)
		}
		if err != nil {
			return p.bad(l, "%s", err)
		}
	}
	for _, f := range piRequired[typ] {
		if _, err := want(o, f.field, "", f.kind); err != nil {
			return p.bad(l, "%s entry: %s", typ, err)
		}
	}
	switch typ {
	case "message":
		m, _ := decodeObject(o["message"], "message")
		if e.Role, err = wantString(m, "role", "message"); err != nil {
			return p.bad(l, "%s", err)
		}
	case "compaction":
		if p.version == 1 {
			if v, ok := o["firstKeptEntryIndex"]; ok {
				if n, perr := strconv.Atoi(string(bytes.TrimSpace(v))); perr == nil && n >= 0 && n < len(p.v1IDs) {
					e.FirstKept = p.v1IDs[n]
				}
			} else {
				e.FirstKept, _ = optString(o, "firstKeptEntryId", "")
			}
		} else if e.FirstKept, err = optString(o, "firstKeptEntryId", ""); err != nil {
			// Absent or null is valid: pi writes such a compaction when it
			// migrates a v1 one whose index names no entry; it keeps nothing
			// before it (SPEC §3.2). Another kind is still a bad line.
			return p.bad(l, "compaction entry: %s", err)
		}
	case "label":
		e.TargetID, _ = optString(o, "targetId", "")
		if e.Label, err = optString(o, "label", ""); err != nil {
			return p.bad(l, "label entry: %s", err)
		}
	case "session_info":
		if e.Name, err = optString(o, "name", ""); err != nil {
			return p.bad(l, "session_info entry: %s", err)
		}
	}
	if ts, ok := parseISOTime(o["timestamp"]); ok {
		e.Timestamp, e.HasTime = ts, true
	} else {
		p.warn(l, errs.CodeBadTimestamp, "timestamp is missing or not an ISO-8601 time")
	}
	if p.version == 1 {
		p.prevID = e.ID
		p.v1IDs[len(p.v1IDs)-1] = e.ID
	}
	return p.emit(l, e)
}
