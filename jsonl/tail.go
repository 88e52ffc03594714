package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/grove-sessions/grove/errs"
)

// The tail and reading on (SPEC §2.5, §6): the bytes after the last LF
// are found by reading backwards from the end, so a tail of any size is
// never held in memory, and a read of a file grown by appending can go on
// from where an earlier read stopped (Resume) instead of from byte 0.

// Resume is where an earlier read of a file stopped, so that a read of the
// same file grown by appending can go on from there (a refresh reads only
// what was appended: docs/indexing.md "Keeping the index current"). Take it from a
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
	// Turn is the byte offset of the line where the last turn before
	// Offset starts (codex: the last CodexTurnStarts entry, 0 when there
	// is none): an event appended to that turn is paired with its lines
	// (codex_pair.go).
	Turn int64
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
	return Resume{Offset: r.Committed, Lines: r.Lines, Dialect: r.Dialect, Version: v, Prev: r.Last, HeaderMs: ms, Turn: r.turn}
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
	p.decided, p.sure, p.resumed, p.version = true, true, true, from.Version
	p.res.Dialect, p.res.Lines, p.res.Committed = from.Dialect, from.Lines, from.Offset
	p.rules, p.prevID, p.headerMs = RulesOf(from.Dialect), from.Prev, from.HeaderMs
	p.turn.begin(from.Turn)
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
	p.at, p.atBase, p.end = r, 0, committed
	res, err := p.runAt(io.NewSectionReader(r, base, committed-base), base)
	if err != nil {
		return res, err
	}
	res.Size = size
	if size > committed && !tailBlank {
		p.warning(tailWarning(opts.Path, size-committed, res.Lines+1, committed))
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

// decideAhead reads the committed lines after line l through p.at (up to
// p.end, or the reader's end) and returns the dialect the first of them
// that decides one decides (SPEC §3), or "" when none does or p cannot
// read ahead (a writer's check of one new line). A pi header there
// decides nothing: a pi file's header is its first parseable line.
func (p *parser) decideAhead(l Line) Dialect {
	if p.at == nil {
		return ""
	}
	from, end := l.BodyOffset()+int64(len(l.Bytes))+1, p.end
	if end < 0 {
		end = math.MaxInt64
	}
	if from >= end {
		return ""
	}
	sc := NewScannerAt(io.NewSectionReader(p.at, from-p.atBase, end-from), from, l.Num+1)
	for sc.Scan() {
		next := sc.Line()
		if !next.Committed || next.Blank() {
			continue
		}
		o, _, why := parseLine(next.Bytes)
		if why != "" {
			continue
		}
		typ, _ := optString(o, "type", "")
		if d, decisive := classify(o, typ); decisive && typ != "session" {
			return d
		}
	}
	return ""
}

// tailWarning is the unterminated_tail warning of the file at path (SPEC
// §2.5): n bytes after its last LF, which start physical line line at
// byte offset.
func tailWarning(path string, n int64, line int, offset int64) *errs.Error {
	return errs.New(errs.CodeUnterminatedTail, fmt.Sprintf("unterminated tail of %d bytes: not a committed line, never parsed", n)).In(path).At(line, offset).WithHint("the last append was cut short; `grove repair` truncates the file to its committed prefix")
}
