package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/grove-sessions/grove/errs"
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

// fuzzReadAll reads data in mode with KeepRaw and returns the entries, the
// result and the error, failing the test on a panic-free but impossible
// error (anything but a bad_line in Strict mode).
func fuzzReadAll(t *testing.T, data []byte, mode Mode) ([]Entry, *Result, error) {
	t.Helper()
	var entries []Entry
	res, err := Read(bytes.NewReader(data), Options{Path: "fuzz.jsonl", Mode: mode, KeepRaw: true}, func(e Entry) error {
		entries = append(entries, e)
		return nil
	})
	if res == nil {
		t.Fatalf("Read(mode %d) returned a nil Result (err %v)", mode, err)
	}
	return entries, res, err
}

// fuzzCheckRead holds the properties of SPEC §2.6 and §3 for any input data.
func fuzzCheckRead(t *testing.T, data []byte) {
	t.Helper()
	salvaged, sres, err := fuzzReadAll(t, data, Salvage)
	if err != nil {
		t.Fatalf("Read(Salvage) = %v, want no error (bad lines are diagnostics)", err)
	}
	_, _, strictErr := fuzzReadAll(t, data, Strict)

	// Result.Errors are in file order (one per line), so Errors[0] is the
	// first bad line of the file.
	for i := 1; i < len(sres.Errors); i++ {
		if sres.Errors[i].Line <= sres.Errors[i-1].Line {
			t.Errorf("Salvage errors out of file order: line %d (%s) after line %d (%s)",
				sres.Errors[i].Line, sres.Errors[i].Message, sres.Errors[i-1].Line, sres.Errors[i-1].Message)
		}
	}

	// Strict fails iff Salvage found a bad line, and on the file's first.
	switch {
	case len(sres.Errors) == 0 && strictErr != nil:
		t.Fatalf("Read(Strict) = %v, but Salvage found no bad line", strictErr)
	case len(sres.Errors) > 0 && strictErr == nil:
		t.Fatalf("Read(Strict) = nil, but Salvage found %d bad lines, first %v", len(sres.Errors), sres.Errors[0])
	case strictErr != nil:
		var se *errs.Error
		if !errors.As(strictErr, &se) || se.Code != errs.CodeBadLine {
			t.Fatalf("Read(Strict) = %v, want a *errs.Error with code bad_line", strictErr)
		}
		first := sres.Errors[0]
		for _, e := range sres.Errors {
			if e.Line < first.Line {
				first = e
			}
		}
		if se.Line != first.Line || se.Offset != first.Offset {
			t.Fatalf("Read(Strict) fails on line %d (byte %d), Salvage's first bad line is %d (byte %d)\nstrict: %v\nsalvage: %v",
				se.Line, se.Offset, first.Line, first.Offset, se, first)
		}
	}
	if sres.Entries != len(salvaged) {
		t.Fatalf("Result.Entries = %d, callback saw %d", sres.Entries, len(salvaged))
	}

	bad := map[int]bool{}
	for _, e := range sres.Errors {
		bad[e.Line] = true
		if e.Code != errs.CodeBadLine {
			t.Fatalf("Salvage error %v, want code bad_line", e)
		}
	}
	prevLine := 0
	for _, e := range salvaged {
		if e.Line <= prevLine {
			t.Fatalf("entry %q on line %d follows line %d: not in file order", e.ID, e.Line, prevLine)
		}
		prevLine = e.Line
		if bad[e.Line] {
			t.Fatalf("entry %q kept from line %d, which is also a bad line", e.ID, e.Line)
		}
		end := e.Offset + int64(e.Length)
		if e.Offset < 0 || end > int64(len(data)) || e.Length != len(e.Raw) {
			t.Fatalf("entry %q: Offset %d, Length %d, len(Raw) %d outside the %d-byte input", e.ID, e.Offset, e.Length, len(e.Raw), len(data))
		}
		if !bytes.Equal(data[e.Offset:end], e.Raw) {
			t.Fatalf("entry %q: input[%d:%d] = %q, Raw = %q", e.ID, e.Offset, end, data[e.Offset:end], e.Raw)
		}
		if end >= sres.Committed || data[end] != '\n' {
			t.Fatalf("entry %q: Raw ends at byte %d, which is not before an LF of the committed prefix (%d bytes)", e.ID, end, sres.Committed)
		}
		if !json.Valid(e.Raw) {
			t.Fatalf("entry %q: Raw %q is not valid JSON", e.ID, e.Raw)
		}
		if e.ID == "" {
			t.Fatalf("entry on line %d has an empty id", e.Line)
		}
	}

	fuzzCheckSurrogates(t, sres, salvaged)
	fuzzRoundTrip(t, sres, salvaged)
}

// fuzzCheckSurrogates holds SPEC §2.9 against encoding/json: a kept line
// has a lone_surrogate warning only if decoding it gives U+FFFD somewhere,
// and has one whenever decoding gives U+FFFD that the line does not spell
// out itself (as the character or as an escape of it).
func fuzzCheckSurrogates(t *testing.T, res *Result, entries []Entry) {
	t.Helper()
	warned := map[int]*errs.Error{}
	for _, w := range res.Warnings {
		if w.Code != errs.CodeLoneSurrogate {
			continue
		}
		if warned[w.Line] != nil || w.Field == "" || LoneSurrogateField(w.Message) != w.Field {
			t.Fatalf("lone_surrogate warning %+v: a second one for the line, or no field path", w)
		}
		warned[w.Line] = w
	}
	kept := map[int]json.RawMessage{}
	for _, e := range entries {
		kept[e.Line] = e.Raw
	}
	if h := res.Header; h != nil {
		kept[h.Line] = h.Raw
	}
	for line, w := range warned {
		if kept[line] == nil {
			t.Fatalf("lone_surrogate warning on line %d, which is no kept entry or header: %v", line, w)
		}
	}
	for line, raw := range kept {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		decoded := fuzzHasFFFD(v)
		spelled := bytes.Contains(raw, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`))
		switch {
		case warned[line] != nil && !decoded:
			t.Fatalf("line %d: lone_surrogate warning %v, but encoding/json decodes no U+FFFD from %s", line, warned[line], raw)
		case warned[line] == nil && decoded && !spelled:
			t.Fatalf("line %d: encoding/json decodes U+FFFD from %s, but there is no lone_surrogate warning", line, raw)
		}
	}
}

// fuzzHasFFFD reports whether any string or key in v holds U+FFFD.
func fuzzHasFFFD(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.ContainsRune(x, '\uFFFD')
	case []any:
		for _, e := range x {
			if fuzzHasFFFD(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.ContainsRune(k, '\uFFFD') || fuzzHasFFFD(e) {
				return true
			}
		}
	}
	return false
}

// fuzzRoundTrip re-reads a file made only of the kept entries' Raw lines (after
// the same pi header) and wants the same entries back.
func fuzzRoundTrip(t *testing.T, res *Result, entries []Entry) {
	t.Helper()
	var file []byte
	v1 := false
	if res.Dialect == Pi {
		switch h := res.Header; {
		case h == nil:
			// The first header line was bad: entries are read as version 3.
			file = append(file, `{"type":"session","id":"fuzz","version":3}`+"\n"...)
		case len(entries) > 0 && h.Line > entries[0].Line:
			// A later header replaced a bad first one: the entries before it
			// were read as version 3, those after by its version; no single
			// header reproduces that.
			return
		default:
			file = append(append(file, h.Raw...), '\n')
			v1 = h.Version == 1
		}
	} else if len(entries) == 0 {
		return
	}
	switch res.Dialect {
	case Codex:
		if res.Header == nil || (len(entries) > 0 && res.Header.Line > entries[0].Line) {
			// No header, or entries before it (a first line that decided
			// nothing): they were read without the header's time.
			return
		}
		file = append(append(file, res.Header.Raw...), '\n')
		v1 = true // L<line> ids, one chain
	case Messages:
		v1 = true
	}
	for _, e := range entries {
		file = append(append(file, e.Raw...), '\n')
	}
	again, res2, err := fuzzReadAll(t, file, Salvage)
	if err != nil {
		t.Fatalf("round trip: Read = %v", err)
	}
	if len(res2.Errors) > 0 {
		t.Fatalf("round trip: kept entries read back with bad line %v\nfile:\n%s", res2.Errors[0], file)
	}
	if res2.Dialect != res.Dialect && res.Dialect != Pi && res.Dialect != Plain {
		return // the line that decided the dialect was not an entry (a bad line or metadata): the entries alone may say another
	}
	if res2.Dialect != res.Dialect {
		t.Fatalf("round trip: dialect %s, want %s\nfile:\n%s", res2.Dialect, res.Dialect, file)
	}
	if len(again) != len(entries) {
		t.Fatalf("round trip: %d entries, want %d\nfile:\n%s", len(again), len(entries), file)
	}
	// Pi version 1 ids are L<line>: map the old ids to the new ones by
	// position and compare the edges through the map.
	idOf := func(id string) string { return id }
	if v1 {
		m := make(map[string]string, len(entries))
		for i, e := range entries {
			m[e.ID] = again[i].ID
		}
		idOf = func(id string) string {
			if n, ok := m[id]; ok {
				return n
			}
			return "?" + id
		}
	}
	for i, want := range entries {
		got := again[i]
		if v1 && got.ID != "L"+strconv.Itoa(got.Line) {
			t.Fatalf("round trip: v1 entry on line %d has id %q, want L%d", got.Line, got.ID, got.Line)
		}
		if g, w := fuzzEntryKey(got, nil), fuzzEntryKey(want, idOf); g != w {
			t.Fatalf("round trip: entry %d = %s, want %s\nfile:\n%s", i, g, w, file)
		}
	}
}

func fuzzEntryKey(e Entry, idOf func(string) string) string {
	id, parent := e.ID, e.ParentID
	if idOf != nil {
		id = idOf(id)
		if !e.Root {
			parent = idOf(parent)
		}
	}
	if e.Root {
		parent = ""
	}
	return fmt.Sprintf("{id %q parent %q root %v type %q role %q ts %d/%v side %v copy %v logical %q cwd %q}", id, parent, e.Root, e.Type, e.Role, e.Timestamp, e.HasTime,
		e.Sidechain, e.Copy, e.LogicalParent, e.Cwd)
}

// FuzzReadPlain feeds any bytes to Read: the dialect is whatever the input
// makes it (the pi fixtures are seeds too, so headers get mutated).
func FuzzReadPlain(f *testing.F) {
	for _, s := range fuzzHandSeeds {
		f.Add(s)
	}
	fuzzAddFileSeeds(f, func(b []byte) { f.Add(b) }, fuzzSeedGlobs...)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzCheckRead(t, data)
	})
}

// FuzzReadPi feeds a pi file: a valid header of the given version (1 to 4)
// followed by any body, so that the fuzzer spends its time on pi entries.
func FuzzReadPi(f *testing.F) {
	addBody := func(b []byte) {
		version := uint8(3)
		if i := bytes.IndexByte(b, '\n'); i >= 0 && bytes.Contains(b[:i], []byte(`"type":"session"`)) {
			version = 1
			var h struct{ Version int }
			if json.Unmarshal(b[:i], &h) == nil && h.Version > 0 {
				version = uint8(h.Version)
			}
			b = b[i+1:]
		}
		f.Add(version, b)
	}
	for _, s := range fuzzHandSeeds {
		addBody(s)
	}
	fuzzAddFileSeeds(f, addBody, fuzzSeedGlobs...)
	f.Add(uint8(1), []byte("{\"type\":\"compaction\",\"firstKeptEntryIndex\":0,\"summary\":\"s\",\"tokensBefore\":1}\n"))
	f.Add(uint8(2), []byte("{\"type\":\"custom\",\"id\":\"a\",\"parentId\":null}\n{\"type\":\"label\",\"id\":\"b\",\"parentId\":\"a\",\"targetId\":\"a\",\"label\":null}\n"))

	f.Fuzz(func(t *testing.T, version uint8, body []byte) {
		v := 1 + int(version)%4
		head := fmt.Sprintf(`{"type":"session","id":"fuzz-session","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","version":%d}`+"\n", v)
		data := append([]byte(head), body...)
		fuzzCheckRead(t, data)
		// The header must have been taken.
		_, res, _ := fuzzReadAll(t, data, Salvage)
		if res.Dialect != Pi || res.Header == nil || res.Header.Version != v || res.Header.ID != "fuzz-session" {
			t.Fatalf("header not read: dialect %s, header %+v", res.Dialect, res.Header)
		}
	})
}

// FuzzReadUndecided feeds a file whose first line decides no dialect,
// followed by any body: the dialect then comes from the first line that
// decides one (SPEC §3). Read (streaming, looking ahead through ReadAt) and
// ReadOpen (the tail found from the end) must agree on every entry and
// diagnostic, and every rule of fuzzCheckRead holds.
func FuzzReadUndecided(f *testing.F) {
	heads := []string{`{"note":"x"}`, `{"type":"never-seen","v":1}`, `[1,2]`, `{"type":"title","title":"t"}`}
	addBody := func(b []byte) {
		for k := range heads {
			f.Add(uint8(k), b)
		}
	}
	for _, s := range fuzzHandSeeds {
		addBody(s)
	}
	fuzzAddFileSeeds(f, addBody, fuzzSeedGlobs...)
	f.Fuzz(func(t *testing.T, k uint8, body []byte) {
		data := append([]byte(heads[int(k)%len(heads)]+"\n"), body...)
		fuzzCheckRead(t, data)
		streamed, sres, _ := fuzzReadAll(t, data, Salvage)
		whole, wres := readAtAll(t, data)
		if sres.Dialect != wres.Dialect || len(streamed) != len(whole) || len(sres.Errors) != len(wres.Errors) || sres.Resumable != wres.Resumable {
			t.Fatalf("Read: %s, %d entries, %d bad lines, resumable %v; ReadOpen: %s, %d, %d, %v",
				sres.Dialect, len(streamed), len(sres.Errors), sres.Resumable, wres.Dialect, len(whole), len(wres.Errors), wres.Resumable)
		}
		for i := range streamed {
			if streamed[i].ID != whole[i].ID || streamed[i].Offset != whole[i].Offset {
				t.Fatalf("entry %d: Read %s@%d, ReadOpen %s@%d", i, streamed[i].ID, streamed[i].Offset, whole[i].ID, whole[i].Offset)
			}
		}
	})
}

// FuzzReadDialects feeds a file of the messages, claude or codex dialect:
// a first line that decides it (a chat message, a Claude Code metadata
// line, a Codex session_meta) followed by any body, and holds every rule
// of fuzzCheckRead, resume included, for it (SPEC §2, §3.4–3.6).
func FuzzReadDialects(f *testing.F) {
	heads := []string{
		`{"role":"user","content":"hi"}`,
		`{"type":"permission-mode","permissionMode":"default","sessionId":"s"}`,
		`{"timestamp":"2026-02-23T19:34:26.098Z","type":"session_meta","payload":{"id":"019c8bfe-ec25-79e0-97d7-bda6a9c575ff","cwd":"/w"}}`,
	}
	addBody := func(b []byte) {
		for k := range heads {
			f.Add(uint8(k), b)
		}
	}
	for _, s := range fuzzHandSeeds {
		addBody(s)
	}
	fuzzAddFileSeeds(f, addBody, fuzzSeedGlobs...)
	f.Fuzz(func(t *testing.T, k uint8, body []byte) {
		head := heads[int(k)%len(heads)]
		data := append([]byte(head+"\n"), body...)
		fuzzCheckRead(t, data)
		_, res, _ := fuzzReadAll(t, data, Salvage)
		if want := []Dialect{Messages, Claude, Codex}[int(k)%len(heads)]; res.Dialect != want {
			t.Fatalf("dialect %s, want %s", res.Dialect, want)
		}
		var lfs []int
		for i, c := range data {
			if c == '\n' {
				lfs = append(lfs, i+1)
			}
		}
		for i, at := range lfs {
			if i < 16 || i == len(lfs)-1 {
				checkResume(t, data[:at], data)
			}
		}
	})
}
