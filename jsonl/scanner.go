package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// bom is the UTF-8 byte order mark, skipped at byte 0 of a file (SPEC §2.2).
var bom = []byte{0xEF, 0xBB, 0xBF}

// Line is one physical line of a session file (SPEC §1, §2.1).
type Line struct {
	Num       int    // physical line number, 1-based, blank lines included
	Offset    int64  // byte offset of the line's first byte in the file
	Skip      int    // bytes skipped before Bytes: 3 for a BOM at byte 0, else 0
	Bytes     []byte // the line without its LF (and without a leading BOM); valid until the next Scan
	Committed bool   // true when the line ends in LF; false for the tail (§2.5)
}

// BodyOffset is the byte offset of Bytes[0] in the file.
func (l Line) BodyOffset() int64 { return l.Offset + int64(l.Skip) }

// Blank reports whether the line holds only JSON whitespace (space, TAB, CR,
// LF), the lines SPEC §2.3 skips without a diagnostic.
func (l Line) Blank() bool { return isBlank(l.Bytes) }

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// Scanner splits a session file into physical lines on LF only (SPEC §2.1).
// Unlike bufio.Scanner it has no line-length limit: a line of any length is
// returned whole, and memory grows with the longest line, not the number of
// lines (§2.8). CR, U+2028, U+2029 and U+0085 never end a line.
//
// The last line returned may be the tail (Committed false): the bytes after
// the last LF, when there are any.
type Scanner struct {
	r    *bufio.Reader
	ra   io.ReaderAt // r's source when it has ReadAt: a long line's length is found first
	base int64       // the file offset of ra's byte 0
	buf  []byte
	line Line
	off  int64
	num  int
	err  error
	done bool
}

// scanBufSize is the read buffer of a Scanner, in bytes.
const scanBufSize = 256 << 10

// NewScanner returns a Scanner reading r from its current position, which it
// takes to be byte 0 of the file.
func NewScanner(r io.Reader) *Scanner {
	return NewScannerAt(r, 0, 1)
}

// NewScannerAt is NewScanner for a reader positioned at byte offset off of
// the file, on the first byte of physical line num (1-based). A BOM is only
// skipped when off is 0.
func NewScannerAt(r io.Reader, off int64, num int) *Scanner {
	s := &Scanner{r: bufio.NewReaderSize(r, scanBufSize), off: off, num: num - 1, base: off}
	ra, isRA := r.(io.ReaderAt)
	sk, isSeeker := r.(io.Seeker)
	if isRA && isSeeker {
		if pos, err := sk.Seek(0, io.SeekCurrent); err == nil {
			s.ra, s.base = ra, off-pos
		}
	}
	return s
}

// Scan advances to the next line. It returns false at the end of the file or
// on a read error (see Err).
func (s *Scanner) Scan() bool {
	if s.done {
		return false
	}
	// The last long line's buffer is let go, not kept for the rest of the
	// file: the next long line gets one of its own size (see reserve).
	s.buf = nil
	var chunk []byte
	var err error
	for {
		chunk, err = s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(s.buf) == 0 {
				s.reserve(len(chunk))
			}
			s.buf = append(s.buf, chunk...)
			continue
		}
		break
	}
	var data []byte
	if len(s.buf) > 0 {
		s.buf = append(s.buf, chunk...)
		data = s.buf
	} else {
		data = chunk
	}
	if err != nil && err != io.EOF {
		s.err = err
		s.done = true
		return false
	}
	if len(data) == 0 { // clean end of file
		s.done = true
		return false
	}
	s.num++
	l := Line{Num: s.num, Offset: s.off, Committed: err == nil}
	s.off += int64(len(data))
	if l.Committed {
		data = data[:len(data)-1]
	} else {
		s.done = true
	}
	if l.Offset == 0 && bytes.HasPrefix(data, bom) {
		l.Skip = len(bom)
		data = data[len(bom):]
	}
	l.Bytes = data
	s.line = l
	return true
}

// reserve makes room in buf for the whole of a line longer than the read
// buffer, whose first n bytes were just read: its length is found by
// reading ahead (ReadAt, which moves no position) to the next LF, so the
// line is copied into one allocation of its size, not into a slice grown
// by doubling, whose copies would cost twice the line again (SPEC §2.8).
// Without ReadAt and Seek, or on a read error (which the next read
// reports), buf grows as append grows it. A reader that counts its bytes
// counts such a line twice.
func (s *Scanner) reserve(n int) {
	if s.ra == nil {
		return
	}
	var probe [64 << 10]byte
	at := s.off - s.base + int64(n) // ReadSlice filled the buffer: nothing more is buffered
	need := n
	for {
		k, err := s.ra.ReadAt(probe[:], at)
		if i := bytes.IndexByte(probe[:k], '\n'); i >= 0 {
			need += i + 1
			break
		}
		need += k
		at += int64(k)
		if err != nil || k == 0 {
			break
		}
	}
	if cap(s.buf) < need {
		s.buf = make([]byte, 0, need)
	}
}

// Line returns the current line. Its Bytes are only valid until the next Scan.
func (s *Scanner) Line() Line { return s.line }

// Err returns the first read error, or nil at a clean end of file.
func (s *Scanner) Err() error { return s.err }

// Offset returns the number of bytes consumed so far; after the last Scan it
// is the file's size.
func (s *Scanner) Offset() int64 { return s.off }
