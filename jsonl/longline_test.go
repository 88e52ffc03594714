package jsonl

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A line much longer than the read buffer is read into one allocation of
// its size when the file has ReadAt (SPEC §2.8): scanning a file with a
// 6 MB line allocates about 6 MB, where append's growth allocated five
// times that. Lines, offsets and committed flags are as before, and a
// reader without ReadAt still reads the line whole.
func TestScanner_LongLineOneAllocation(t *testing.T) {
	long := `{"data":"` + strings.Repeat("QUJD", 6<<20/4) + `"}`
	src := "{\"a\":1}\n" + long + "\n" + long[:3<<20] + "\n{\"b\":2}"
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []Line{{Num: 1, Offset: 0, Committed: true}, {Num: 2, Offset: 8, Committed: true},
		{Num: 3, Offset: int64(9 + len(long)), Committed: true}, {Num: 4, Offset: int64(10 + len(long) + 3<<20)}}
	wantBytes := []string{`{"a":1}`, long, long[:3<<20], `{"b":2}`}
	check := func(name string, sc *Scanner) {
		t.Helper()
		i := 0
		for ; sc.Scan(); i++ {
			l := sc.Line()
			if i >= len(want) || l.Num != want[i].Num || l.Offset != want[i].Offset || l.Committed != want[i].Committed || string(l.Bytes) != wantBytes[i] {
				t.Fatalf("%s: line %d = {%d %d %v, %d bytes}, want %+v with %d bytes", name, i+1, l.Num, l.Offset, l.Committed, len(l.Bytes), want[min(i, len(want)-1)], len(wantBytes[min(i, len(want)-1)]))
			}
		}
		if i != len(want) || sc.Err() != nil {
			t.Fatalf("%s: %d lines, err %v; want %d", name, i, sc.Err(), len(want))
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	check("file", NewScanner(f))
	runtime.ReadMemStats(&after)
	// The two long lines (9 MB) plus the read buffer, with room to spare;
	// the string comparisons above allocate nothing.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(len(long)+3<<20+2<<20); got > limit {
		t.Errorf("scanning %d bytes allocated %d bytes, want at most %d", len(src), got, limit)
	}
	check("reader without ReadAt", NewScanner(strings.NewReader(src)).withoutReadAt())
	// A file read from the middle: ReadAt offsets follow the reader's
	// position, not the offset the scanner reports.
	if _, err := f.Seek(8, 0); err != nil {
		t.Fatal(err)
	}
	sc := NewScannerAt(f, 8, 2)
	if !sc.Scan() || sc.Line().Offset != 8 || string(sc.Line().Bytes) != long || !sc.Scan() || string(sc.Line().Bytes) != long[:3<<20] {
		t.Errorf("scanning from byte 8: want lines 2 and 3 whole")
	}
}

// withoutReadAt drops s's ReadAt, as for a pipe.
func (s *Scanner) withoutReadAt() *Scanner { s.ra = nil; return s }

// Members and Elements give values byte for byte as sub-slices, keys
// decoded, and refuse what is not one valid object or array; Field keeps
// encoding/json's answers (the last of a key given twice).
func TestMembers(t *testing.T) {
	raw := []byte(` {"a": [1, {"b":"x"}] ,"\u0063":"é\"","a":null} `)
	var keys, vals []string
	if !Members(raw, func(k string, v []byte) bool { keys, vals = append(keys, k), append(vals, string(v)); return true }) {
		t.Fatal("Members refused a valid object")
	}
	if strings.Join(keys, "|") != "a|c|a" || strings.Join(vals, "|") != `[1, {"b":"x"}]|"é\""|null` {
		t.Errorf("Members = %q %q", keys, vals)
	}
	for _, bad := range []string{``, `null`, `[1]`, `{"a":1`, `{"a":1}x`, `{"a":tru}`, `{a:1}`} {
		if Members([]byte(bad), func(string, []byte) bool { t.Errorf("Members(%q) called fn", bad); return true }) {
			t.Errorf("Members(%q) = true", bad)
		}
	}
	var elems []string
	if !Elements([]byte(`[ 1,"a" , {"x":[]}]`), func(e []byte) { elems = append(elems, string(e)) }) || strings.Join(elems, "|") != `1|"a"|{"x":[]}` {
		t.Errorf("Elements = %q", elems)
	}
	if Elements([]byte(`{"a":1}`), func([]byte) {}) {
		t.Error("Elements of an object = true")
	}
	for _, tt := range []struct{ raw, key string }{
		{`{"a":1,"a":2}`, "a"}, {`{"a":{"b":1}}`, "a"}, {`{"c":1}`, "a"}, {`null`, "a"}, {`{"a":1`, "a"}, {`{"\u00e9":3}`, "é"},
	} {
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(tt.raw), &m)
		if got := Field([]byte(tt.raw), tt.key); !bytes.Equal(got, m[tt.key]) {
			t.Errorf("Field(%s, %q) = %s, want %s", tt.raw, tt.key, got, m[tt.key])
		}
	}
	// A value's capacity ends with it: appending never writes into raw.
	Members(raw, func(k string, v []byte) bool { _ = append(v, '!'); return true })
	if string(raw) != ` {"a": [1, {"b":"x"}] ,"\u0063":"é\"","a":null} ` {
		t.Errorf("appending to a value changed raw: %s", raw)
	}
	for s, want := range map[string]bool{`{"a":1}`: true, `{"a b":"c\" d"}`: true, `{"a": 1}`: false, "[1,\n2]": false, `"x\\"`: true} {
		if IsCompact([]byte(s)) != want {
			t.Errorf("IsCompact(%s) = %v", s, !want)
		}
	}
}
