package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

// Fuzzing the readers (SPEC §2.6, §3): what any bytes read as, in every mode and dialect.

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
