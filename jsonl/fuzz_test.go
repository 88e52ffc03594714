package jsonl

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/grove-sessions/grove/internal/testutil"
)

// Native fuzz targets for the committed-line reader (SPEC §2, §3).
//
// Run one with, for example:
//
//	go test ./jsonl -run '^$' -fuzz FuzzScanner -fuzztime 60s
//
// Without -fuzz, `go test` runs every seed below and every input saved under
// testdata/fuzz/<FuzzX>/ as an ordinary test.

// fuzzHandSeeds are the small inputs the fixtures do not cover: the byte-level
// corners of SPEC §2 and JSON corners of §2.4.
var fuzzHandSeeds = [][]byte{
	nil,
	[]byte("\n"),
	[]byte("\n\n\n"),
	[]byte(" \t\r\n"),
	[]byte("\r"),
	[]byte("\r\n\r\n"),
	[]byte("\xEF\xBB\xBF"),
	[]byte("\xEF\xBB\xBF\n"),
	[]byte("\xEF\xBB\xBF{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"cwd\",\"value\":\"/w\"}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":1}\n\xEF\xBB\xBF{\"id\":\"b\",\"parentId\":\"a\",\"timestamp\":2,\"type\":\"metadata\",\"key\":\"k\",\"value\":2}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":\"v\"}\r\n{\"id\":\"b\",\"parentId\":\"a\",\"timestamp\":2,\"type\":\"metadata\",\"key\":\"k\",\"value\":\"v\"}\r\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":\"v\"}\r{\"id\":\"b\",\"parentId\":\"a\",\"timestamp\":2,\"type\":\"metadata\",\"key\":\"k\",\"value\":\"v\"}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":\"v\x00\"}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":\"\xff\xfe\"}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":\"\xe4\xb8\"}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1e400,\"type\":\"metadata\",\"key\":\"k\",\"value\":1}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":99999999999999999999999,\"type\":\"metadata\",\"key\":\"k\",\"value\":1}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":-1.5e-300,\"type\":\"metadata\",\"key\":\"k\",\"value\":123456789012345678901234567890}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}\n"),
	[]byte("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":NaN,\"type\":\"metadata\",\"key\":\"k\",\"value\":1}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":1,}\n"),
	[]byte("null\n[]\n\"s\"\n1\ntrue\n{}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\",\"value\":1}"),
	[]byte("{\"id\":\"a\",\"id\":\"b\",\"parentId\":null,\"timestamp\":1,\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n"),
	[]byte("{\"type\":\"title\",\"title\":\"t\"}\n{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n"),
	[]byte("{\"type\":\"title\"}\n0\n{\"type\":\"session\",\"id\":\"s\"}\n"),
	[]byte("{\"type\":\"title\"}\n{\"type\":\"title\"}\n{\"type\":\"session\",\"id\":\"s\"}\n"),
	[]byte("{\"type\":\"session\"}\n{\"type\":\"session\",\"id\":\"s\",\"version\":1}\n{\"type\":\"custom\",\"customType\":\"x\"}\n"),
	[]byte("{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"type\":\"compaction\",\"firstKeptEntryIndex\":1,\"summary\":\"s\",\"tokensBefore\":1}\n"),
	[]byte("{\"type\":\"session\",\"id\":\"s\",\"version\":4}\n{\"type\":\"weird\",\"id\":\"a\",\"parentId\":null}\n{\"type\":\"session\",\"id\":\"t\"}\n"),
	[]byte("{\"id\":\"a\",\"parentId\":null,\"timestamp\":1,\"type\":\"metadata\",\"key\":\"k\\ud83d\",\"value\":[\"\\udc00\",\"\\\\ud800\",\"\\ud83c\\udf33\"]}\n"),
	[]byte("{\"type\":\"session\",\"id\":\"s\",\"version\":3,\"cwd\":\"/w\\ud83d\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"cut \\ud83d\\ud83d\\ude00 \\ufffd\"}]}}\n"),
	[]byte("{\"type\":\"session\",\"id\":\"s\",\"version\":2}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.123+02:00\",\"message\":{\"role\":\"bashExecution\"}}\n"),
}

// fuzzAddFileSeeds adds every file matching each glob under testdata as a seed.
func fuzzAddFileSeeds(f *testing.F, add func(data []byte), globs ...string) {
	f.Helper()
	for _, g := range globs {
		files, err := filepath.Glob(testutil.Testdata(f, g))
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			add(b)
		}
	}
}

var fuzzSeedGlobs = []string{"cases/*.jsonl", "pi/*.jsonl", "plain/*.jsonl", "quirks/*.jsonl",
	"messages/*.jsonl", "claude/*.jsonl", "claude/*/subagents/*.jsonl", "codex/*.jsonl"}

// fuzzScanAll returns copies of every line s yields, and fails on a read error.
func fuzzScanAll(t *testing.T, s *Scanner) []Line {
	t.Helper()
	var lines []Line
	for s.Scan() {
		l := s.Line()
		l.Bytes = bytes.Clone(l.Bytes)
		lines = append(lines, l)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Scanner.Err() = %v, want nil", err)
	}
	return lines
}

// fuzzCheckLines checks the lines a Scanner returned for data, read from byte
// off of a file whose first line there is number num.
func fuzzCheckLines(t *testing.T, data []byte, lines []Line, off int64, num int) {
	t.Helper()
	var rebuilt []byte
	pos := off
	for i, l := range lines {
		if l.Num != num+i {
			t.Fatalf("line %d: Num = %d, want %d", i, l.Num, num+i)
		}
		if l.Offset != pos {
			t.Fatalf("line %d: Offset = %d, want %d (sum of the lengths before it)", l.Num, l.Offset, pos)
		}
		if bytes.IndexByte(l.Bytes, '\n') >= 0 {
			t.Fatalf("line %d: Bytes %q hold an LF", l.Num, l.Bytes)
		}
		switch {
		case l.Skip == 0:
		case l.Skip == len(bom) && l.Offset == 0:
			rebuilt = append(rebuilt, bom...)
		default:
			t.Fatalf("line %d: Skip = %d at offset %d, want 0 (or 3 for a BOM at byte 0)", l.Num, l.Skip, l.Offset)
		}
		if l.Offset == 0 && l.Skip == 0 && bytes.HasPrefix(data, bom) {
			t.Fatalf("line 1: a BOM at byte 0 was not skipped")
		}
		if l.BodyOffset() != l.Offset+int64(l.Skip) {
			t.Fatalf("line %d: BodyOffset() = %d, want %d", l.Num, l.BodyOffset(), l.Offset+int64(l.Skip))
		}
		rebuilt = append(rebuilt, l.Bytes...)
		if !l.Committed {
			if i != len(lines)-1 {
				t.Fatalf("line %d of %d is not committed; only the last line may be the tail", l.Num, len(lines))
			}
			if l.Skip+len(l.Bytes) == 0 {
				t.Fatalf("line %d: an empty tail was returned as a line", l.Num)
			}
		} else {
			rebuilt = append(rebuilt, '\n')
		}
		pos += int64(l.Skip + len(l.Bytes))
		if l.Committed {
			pos++
		}
		if got := data[l.Offset-off : pos-off]; !bytes.Equal(got, rebuilt[l.Offset-off:]) {
			t.Fatalf("line %d: input[%d:%d] = %q, line gives %q", l.Num, l.Offset, pos, got, rebuilt[l.Offset-off:])
		}
	}
	if !bytes.Equal(rebuilt, data) {
		t.Fatalf("lines rebuild %d bytes %q, want the input's %d bytes %q", len(rebuilt), rebuilt, len(data), data)
	}
	if n := len(lines); n > 0 && lines[n-1].Committed != bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("last line Committed = %v, input ends in LF = %v", lines[n-1].Committed, !lines[n-1].Committed)
	}
}

// FuzzScanner checks SPEC §2.1-§2.2 on the Scanner alone: for any input the
// lines, joined with LF (plus the BOM it skipped), are the input exactly;
// line numbers count from 1 without gaps; offsets are the sums of the
// lengths before; only the last line may be the uncommitted tail. The same
// holds when the reader hands out one or a few bytes at a time, when the
// scan starts at a later line (NewScannerAt), and when a long first line
// pushes the input across the Scanner's read-buffer boundary.
func FuzzScanner(f *testing.F) {
	for _, s := range fuzzHandSeeds {
		f.Add(s, uint8(0))
	}
	fuzzAddFileSeeds(f, func(b []byte) { f.Add(b, uint8(0)) }, fuzzSeedGlobs...)
	f.Add([]byte("a\nb\r\nc"), uint8(1))
	f.Add([]byte("\xEF\xBB\xBF\xEF\xBB\xBF\n\xEF\xBB\xBF"), uint8(2))
	f.Add([]byte("x\n\ny\n"), uint8(3))

	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		lines := fuzzScanAll(t, NewScanner(bytes.NewReader(data)))
		fuzzCheckLines(t, data, lines, 0, 1)

		// Small reads must not change the lines.
		var r = iotest.OneByteReader(bytes.NewReader(data))
		if mode%2 == 1 {
			r = iotest.HalfReader(bytes.NewReader(data))
		}
		again := fuzzScanAll(t, NewScanner(r))
		if len(again) != len(lines) {
			t.Fatalf("with small reads: %d lines, want %d", len(again), len(lines))
		}
		for i := range lines {
			if !fuzzSameLine(again[i], lines[i]) {
				t.Fatalf("with small reads: line %d = %+v, want %+v", i+1, again[i], lines[i])
			}
		}

		// Starting at any committed line gives the same later lines.
		if len(lines) > 1 {
			k := 1 + int(mode)%(len(lines)-1)
			start := lines[k].Offset
			rest := fuzzScanAll(t, NewScannerAt(bytes.NewReader(data[start:]), start, k+1))
			fuzzCheckLines(t, data[start:], rest, start, k+1)
			if len(rest) != len(lines)-k {
				t.Fatalf("NewScannerAt(line %d): %d lines, want %d", k+1, len(rest), len(lines)-k)
			}
			for i := range rest {
				if !fuzzSameLine(rest[i], lines[k+i]) {
					t.Fatalf("NewScannerAt(line %d): line %d = %+v, want %+v", k+1, k+i+1, rest[i], lines[k+i])
				}
			}
		}

		// A first line that ends just past the read buffer: its last bytes
		// and the input's first lines straddle the bufio boundary.
		if mode%4 == 2 {
			pad := bytes.Repeat([]byte{'x'}, scanBufSize-len(data)%64-1)
			long := append(append(pad, '\n'), data...)
			got := fuzzScanAll(t, NewScanner(bytes.NewReader(long)))
			fuzzCheckLines(t, long, got, 0, 1)
			if len(got) != len(lines)+1 || len(got[0].Bytes) != len(pad) {
				t.Fatalf("after a %d-byte line: %d lines, want %d", len(pad), len(got), len(lines)+1)
			}
		}
	})
}

func fuzzSameLine(a, b Line) bool {
	return a.Num == b.Num && a.Offset == b.Offset && a.Skip == b.Skip && a.Committed == b.Committed && bytes.Equal(a.Bytes, b.Bytes)
}
