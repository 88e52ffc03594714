package kept

import (
	"bytes"
	"testing"
)

// TestSplitVersion: a VersionPath splits back into the file's path and
// the version's number; a path with no "@vN" at its end, or a number
// written otherwise (0, a leading zero, a sign), is no version path.
func TestSplitVersion(t *testing.T) {
	for _, c := range []struct {
		in   string
		path string
		n    int
		ok   bool
	}{
		{VersionPath("/s/a.jsonl", 1), "/s/a.jsonl", 1, true},
		{VersionPath("/s/a@v2/b.jsonl", 12), "/s/a@v2/b.jsonl", 12, true},
		{"/s/a.jsonl", "/s/a.jsonl", 0, false},
		{"/s/a@v2/b.jsonl", "/s/a@v2/b.jsonl", 0, false},
		{"/s/a.jsonl@v0", "/s/a.jsonl@v0", 0, false},
		{"/s/a.jsonl@v01", "/s/a.jsonl@v01", 0, false},
		{"/s/a.jsonl@v+1", "/s/a.jsonl@v+1", 0, false},
		{"@v1", "@v1", 0, false},
	} {
		path, n, ok := SplitVersion(c.in)
		if path != c.path || n != c.n || ok != c.ok {
			t.Errorf("SplitVersion(%q) = %q, %d, %v; want %q, %d, %v", c.in, path, n, ok, c.path, c.n, c.ok)
		}
	}
	if !IsEarlier("/s/a.jsonl@v2", "abc@v2") || IsEarlier("/s/a.jsonl@v2", "abc@v1") || IsEarlier("/s/a.jsonl", "abc@v1") {
		t.Error("IsEarlier: want true only when path and id end in the same @vN")
	}
}

// TestStore_VersionByPath: OpenFile and Remove take a VersionPath for an
// earlier version; removing one leaves the others, and the next Retire
// takes the number after the highest kept, never overwriting a version
// still kept (counting the versions would give it version 2's).
func TestStore_VersionByPath(t *testing.T) {
	st := Open(t.TempDir())
	w := mustWriter(t, st, "/s/a.jsonl")
	contents := [][]byte{lines(0, 3), lines(10, 4), lines(20, 5)}
	for i, c := range contents {
		if i > 0 {
			if err := w.Retire(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	for n := 1; n <= 2; n++ {
		if got := mustRead(t, st, VersionPath("/s/a.jsonl", n)); !bytes.Equal(got, contents[n-1]) {
			t.Errorf("OpenFile of version %d: %d bytes, want %d", n, len(got), len(contents[n-1]))
		}
	}
	if err := st.Remove("host", VersionPath("/s/a.jsonl", 1)); err != nil {
		t.Fatal(err)
	}
	if got := st.VersionNumbers("host", "/s/a.jsonl"); len(got) != 1 || got[0] != 2 {
		t.Fatalf("after removing version 1: versions %v, want [2]", got)
	}
	if got := mustRead(t, st, "/s/a.jsonl"); !bytes.Equal(got, contents[2]) {
		t.Errorf("after removing version 1 the current version is %d bytes, want %d", len(got), len(contents[2]))
	}
	w = mustWriter(t, st, "/s/a.jsonl")
	if err := w.Retire(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := st.VersionNumbers("host", "/s/a.jsonl"); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("after the next Retire: versions %v, want [2 3]", got)
	}
	if got := mustRead(t, st, VersionPath("/s/a.jsonl", 2)); !bytes.Equal(got, contents[1]) {
		t.Errorf("version 2 after the next Retire: %d bytes, want its own %d", len(got), len(contents[1]))
	}
}
