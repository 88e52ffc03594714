package jsonl

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

// readAtAll reads data from byte 0 the way the index does (ReadOpen's rules,
// with the tail found from the end).
func readAtAll(t *testing.T, data []byte) ([]Entry, *Result) {
	t.Helper()
	var entries []Entry
	p := newParser(Options{Path: "f.jsonl", KeepRaw: true}, func(e Entry) error {
		entries = append(entries, e)
		return nil
	})
	res, err := p.runFile(bytes.NewReader(data), 0, int64(len(data)))
	if err != nil {
		t.Fatalf("read from byte 0: %v", err)
	}
	return entries, res
}

func diagKeys(diags []*errs.Error, after int) []string {
	var out []string
	for _, e := range diags {
		if e.Line > after {
			out = append(out, fmt.Sprintf("%s@%d/%d:%s", e.Code, e.Line, e.Offset, e.Message))
		}
	}
	return out
}

// checkResume holds the rule incremental refresh rests on: when a read of
// a committed prefix says Resumable, reading the grown file from its
// ResumeAt sees exactly what a read from byte 0 sees after that prefix.
func checkResume(t *testing.T, prefix, grown []byte) {
	t.Helper()
	before, first := readAtAll(t, prefix)
	if !first.Resumable {
		return
	}
	full, whole := readAtAll(t, grown)
	// What the earlier read said of its entries holds for the grown file:
	// nothing appended changes an entry already stored (a Codex event's
	// pairing included, codex_pair.go).
	for i, e := range before {
		if i >= len(full) || fuzzEntryKey(e, nil) != fuzzEntryKey(full[i], nil) {
			t.Fatalf("entry %d of the prefix read as %s; the grown file reads it %v", i, fuzzEntryKey(e, nil), full[min(i, len(full)-1)])
		}
	}
	var got []Entry
	n := int64(0)
	inc, err := ReadFrom(countingReaderAt{bytes.NewReader(grown), &n}, int64(len(grown)), first.ResumeAt(), Options{Path: "f.jsonl", KeepRaw: true}, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadFrom: %v", err)
	}
	var want []Entry
	for _, e := range full {
		if e.Line > first.Lines {
			want = append(want, e)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("ReadFrom gave %d entries, a read from byte 0 %d after line %d\nprefix %q\ngrown %q", len(got), len(want), first.Lines, prefix, grown)
	}
	for i := range got {
		if fuzzEntryKey(got[i], nil) != fuzzEntryKey(want[i], nil) || got[i].Line != want[i].Line || got[i].Offset != want[i].Offset || !bytes.Equal(got[i].Raw, want[i].Raw) {
			t.Fatalf("entry %d: ReadFrom %s line %d offset %d, from byte 0 %s line %d offset %d", i,
				fuzzEntryKey(got[i], nil), got[i].Line, got[i].Offset, fuzzEntryKey(want[i], nil), want[i].Line, want[i].Offset)
		}
	}
	if g, w := fmt.Sprint(diagKeys(inc.Errors, 0)), fmt.Sprint(diagKeys(whole.Errors, first.Lines)); g != w {
		t.Fatalf("errors: ReadFrom %s, from byte 0 %s", g, w)
	}
	if g, w := fmt.Sprint(diagKeys(inc.Warnings, 0)), fmt.Sprint(diagKeys(whole.Warnings, first.Lines)); g != w {
		t.Fatalf("warnings: ReadFrom %s, from byte 0 %s", g, w)
	}
	if inc.Lines != whole.Lines || inc.Committed != whole.Committed || inc.Dialect != whole.Dialect || inc.Resumable != whole.Resumable {
		t.Fatalf("ReadFrom: lines %d committed %d dialect %s resumable %v; from byte 0: %d %d %s %v",
			inc.Lines, inc.Committed, inc.Dialect, inc.Resumable, whole.Lines, whole.Committed, whole.Dialect, whole.Resumable)
	}
	// Only the appended bytes are read (twice at most: the tail is found
	// backwards from the end, then the committed lines are read forwards),
	// never the prefix again, but for a Codex file's last turn, which its
	// pairing reads again from where it starts (at most twice over, the
	// turn's long lines counted twice by the scanner).
	added, max := int64(len(grown))-first.Committed, int64(0)
	again := first.Committed - first.ResumeAt().Turn
	if first.Dialect == Codex {
		max = 2 * (again + added)
	}
	if max += 2 * added; n > max {
		t.Fatalf("ReadFrom read %d bytes; only %d after the resume point are new, %d of the last turn before it", n, added, again)
	}
}

type countingReaderAt struct {
	r *bytes.Reader
	n *int64
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	*c.n += int64(k)
	return k, err
}

// FuzzReadFrom splits any input at a committed line boundary (the earlier
// read) and checks ReadFrom on the whole against a read from byte 0.
func FuzzReadFrom(f *testing.F) {
	for _, s := range fuzzHandSeeds {
		f.Add(s, uint16(1))
	}
	fuzzAddFileSeeds(f, func(b []byte) { f.Add(b, uint16(3)) }, fuzzSeedGlobs...)
	f.Add([]byte("{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n{\"type\":\"session\",\"id\":\"t\",\"version\":3}\n"), uint16(1))
	f.Add([]byte("{\"type\":\"title\"}\n{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n"), uint16(1))
	f.Add([]byte("{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n{\"type\":\"custom\",\"id\":\"a\",\"parentId\":null}\n{\"type\":\"cus"), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		// Cut after the cut-th LF (mod the number of LFs), and also try
		// every LF when the input is small.
		var lfs []int
		for i, c := range data {
			if c == '\n' {
				lfs = append(lfs, i+1)
			}
		}
		if len(lfs) == 0 {
			return
		}
		if len(lfs) <= 16 {
			for _, at := range lfs {
				checkResume(t, data[:at], data)
			}
			return
		}
		checkResume(t, data[:lfs[int(cut)%len(lfs)]], data)
	})
}

func TestReadFrom_TitleLineIsNotResumable(t *testing.T) {
	_, res := readAtAll(t, []byte("{\"type\":\"title\",\"title\":\"t\"}\n"))
	if res.Resumable {
		t.Fatalf("a committed prefix ending in a title line is Resumable; the next line may be a pi header")
	}
	_, res = readAtAll(t, []byte("{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"custom\",\"customType\":\"x\"}\n"))
	if res.Resumable {
		t.Fatalf("a pi version 1 file is Resumable; its ids come from line numbers")
	}
	_, res = readAtAll(t, []byte("{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n"))
	if !res.Resumable {
		t.Fatalf("a pi version 3 header is not Resumable")
	}
}
