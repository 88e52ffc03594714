package kept

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// lines is n JSONL lines of about 100 bytes, numbered from first.
func lines(first, n int) []byte {
	var b bytes.Buffer
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","message":{"role":"user","content":"line %d of a session, said again and again"}}`+"\n", i, i)
	}
	return b.Bytes()
}

func mustWriter(t testing.TB, st *Store, path string) *Writer {
	t.Helper()
	w, err := st.Writer("host", path)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustRead(t testing.TB, st *Store, path string) []byte {
	t.Helper()
	f, err := st.OpenFile("host", path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, f.Size()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriter_AppendReadBack(t *testing.T) {
	old := FrameMax
	FrameMax = 4 << 10 // many frames
	defer func() { FrameMax = old }()
	st := Open(filepath.Join(t.TempDir(), "kept"))
	want := append(lines(0, 300), lines(300, 7)...)
	w := mustWriter(t, st, "/s/a.jsonl")
	if err := w.Append(want[:len(lines(0, 300))]); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(want[len(lines(0, 300)):]); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := mustRead(t, st, "/s/a.jsonl"); !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes, want %d", len(got), len(want))
	}
	// By offset: every line alone.
	f, _ := st.OpenFile("host", "/s/a.jsonl")
	defer f.Close()
	off := 0
	for _, l := range bytes.SplitAfter(want, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		p := make([]byte, len(l))
		if _, err := f.ReadAt(p, int64(off)); err != nil || !bytes.Equal(p, l) {
			t.Fatalf("ReadAt(%d) = %q, %v; want %q", off, p, err, l)
		}
		off += len(l)
	}
	if len(f.frames) < 10 {
		t.Errorf("%d frames, want many", len(f.frames))
	}
	// Any zstd tool reads the kept file as the JSONL (skippable frames).
	raw, _ := os.ReadFile(st.Name("host", "/s/a.jsonl") + zstExt)
	d, _ := zstd.NewReader(nil)
	plain, err := d.DecodeAll(raw, nil)
	if err != nil || !bytes.Equal(plain, want) {
		t.Errorf("zstd decode of the kept file: %d bytes, %v; want %d", len(plain), err, len(want))
	}
	if size, _ := st.Size(); size*4 > int64(len(want)) {
		t.Errorf("store takes %d bytes for %d", size, len(want))
	}
	list, err := st.List()
	if err != nil || len(list) != 1 || list[0].Path != "/s/a.jsonl" || list[0].Len != int64(len(want)) {
		t.Errorf("List() = %+v, %v", list, err)
	}
}

func TestStore_Modes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	st := Open(filepath.Join(t.TempDir(), "kept"))
	w := mustWriter(t, st, "/s/a.jsonl")
	w.Append(lines(0, 2))
	w.Close()
	base := st.Name("host", "/s/a.jsonl")
	for p, want := range map[string]os.FileMode{filepath.Dir(base): 0o700, base + zstExt: 0o600, base + idxExt: 0o600} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
		}
	}
}

func TestWriter_Cut(t *testing.T) {
	st := Open(filepath.Join(t.TempDir(), "kept"))
	a, b, c := lines(0, 3), lines(3, 3), lines(6, 3)
	w := mustWriter(t, st, "/s/a.jsonl")
	for _, p := range [][]byte{a, b, c} {
		if err := w.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	// Past the end: nothing cut; inside b: back to b's start.
	for _, tc := range []struct{ n, want int64 }{
		{int64(len(a) + len(b) + len(c)), int64(len(a) + len(b) + len(c))},
		{int64(len(a) + len(b)/2), int64(len(a))},
		{int64(len(a)), int64(len(a))},
		{5, 0},
	} {
		got, err := w.Cut(tc.n)
		if err != nil || got != tc.want {
			t.Fatalf("Cut(%d) = %d, %v; want %d", tc.n, got, err, tc.want)
		}
	}
	w.Append(c)
	w.Close()
	if got := mustRead(t, st, "/s/a.jsonl"); !bytes.Equal(got, c) {
		t.Errorf("after cuts: %q, want %q", got, c)
	}
}

func TestWriter_Retire(t *testing.T) {
	st := Open(filepath.Join(t.TempDir(), "kept"))
	w := mustWriter(t, st, "/s/a.jsonl")
	w.Append(lines(0, 4))
	if err := w.Retire(); err != nil {
		t.Fatal(err)
	}
	w.Append(lines(10, 2))
	w.Close()
	if got := mustRead(t, st, "/s/a.jsonl"); !bytes.Equal(got, lines(10, 2)) {
		t.Errorf("current version %q", got)
	}
	if n := st.Versions("host", "/s/a.jsonl"); n != 1 {
		t.Fatalf("%d earlier versions, want 1", n)
	}
	v, err := st.OpenVersion("host", "/s/a.jsonl", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	got, _ := io.ReadAll(io.NewSectionReader(v, 0, v.Size()))
	if !bytes.Equal(got, lines(0, 4)) {
		t.Errorf("earlier version %q", got)
	}
	if list, _ := st.List(); len(list) != 1 {
		t.Errorf("List() = %+v, want the current version only", list)
	}
	if err := st.Remove("host", "/s/a.jsonl"); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(st.Name("host", "/s/a.jsonl") + "*"); len(left) > 0 {
		t.Errorf("Remove left %v", left)
	}
}

// TestWriter_IndexLost: the frame index is a cache: lost, cut short or
// wrong, it is made again from the frames.
func TestWriter_IndexLost(t *testing.T) {
	for name, spoil := range map[string]func(string){
		"removed": func(p string) { os.Remove(p) },
		"cut":     func(p string) { b, _ := os.ReadFile(p); os.WriteFile(p, b[:len(b)-5], 0o600) },
		"wrong":   func(p string) { b, _ := os.ReadFile(p); b[len(b)-1] ^= 0xff; os.WriteFile(p, b, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			st := Open(filepath.Join(t.TempDir(), "kept"))
			w := mustWriter(t, st, "/s/a.jsonl")
			want := []byte{}
			for i := 0; i < 4; i++ {
				w.Append(lines(i*3, 3))
				want = append(want, lines(i*3, 3)...)
			}
			w.Close()
			spoil(st.Name("host", "/s/a.jsonl") + idxExt)
			if got := mustRead(t, st, "/s/a.jsonl"); !bytes.Equal(got, want) {
				t.Fatalf("read back %d bytes, want %d", len(got), len(want))
			}
			w = mustWriter(t, st, "/s/a.jsonl")
			w.Close()
			if fi, _ := os.Stat(st.Name("host", "/s/a.jsonl") + idxExt); fi.Size() != 4*idxRecord {
				t.Errorf("frame index of %d bytes after a writer opened it, want %d", fi.Size(), 4*idxRecord)
			}
		})
	}
}

// FuzzWriter_TornFrame: a kept file cut or spoilt at any byte after its
// head reads back a prefix of what was appended that ends at a frame
// boundary (the torn frame is detected); a writer cuts the torn frame and
// appends after it.
func FuzzWriter_TornFrame(f *testing.F) {
	f.Add(uint16(0), byte(0), false)
	f.Add(uint16(40), byte(0), false)
	f.Add(uint16(300), byte(7), true)
	f.Add(uint16(1000), byte(1), true)
	f.Fuzz(func(t *testing.T, at uint16, x byte, flip bool) {
		st := Open(filepath.Join(t.TempDir(), "kept"))
		w := mustWriter(t, st, "/s/a.jsonl")
		var pieces [][]byte
		for i := 0; i < 5; i++ {
			p := lines(i*4, 4)
			if err := w.Append(p); err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, p)
		}
		headEnd := w.frames[0].off
		w.Close()
		name := st.Name("host", "/s/a.jsonl")
		b, _ := os.ReadFile(name + zstExt)
		os.Remove(name + idxExt) // the frames are read from the file
		cut := headEnd + int64(at)%(int64(len(b))-headEnd+1)
		if flip && cut < int64(len(b)) {
			b[cut] ^= x | 1
		} else {
			b = b[:cut]
		}
		os.WriteFile(name+zstExt, b, 0o600)
		got := mustRead(t, st, "/s/a.jsonl")
		var prefix []byte
		ok := len(got) == 0
		for _, p := range pieces {
			prefix = append(prefix, p...)
			ok = ok || bytes.Equal(got, prefix)
		}
		if !ok {
			t.Fatalf("read back %d bytes: not a prefix of whole frames", len(got))
		}
		w = mustWriter(t, st, "/s/a.jsonl")
		if w.Len() != int64(len(got)) {
			t.Fatalf("writer at %d, reader read %d", w.Len(), len(got))
		}
		if err := w.Append(lines(100, 1)); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if again := mustRead(t, st, "/s/a.jsonl"); !bytes.Equal(again, append(got, lines(100, 1)...)) {
			t.Fatalf("after the torn frame was cut and a frame appended: %d bytes", len(again))
		}
		if strings.Contains(string(got), "\x00") {
			t.Fatal("zero bytes read back")
		}
	})
}

// BenchmarkWriter_Append: committed bytes appended in blocks of 256 KiB,
// the way the keeper hands them on (MB/s of JSONL kept).
func BenchmarkWriter_Append(b *testing.B) {
	data := lines(0, 40000) // about 4.5 MB
	st := Open(filepath.Join(b.TempDir(), "kept"))
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		w, err := st.Writer("host", fmt.Sprintf("/s/%d.jsonl", i))
		if err != nil {
			b.Fatal(err)
		}
		for p := data; len(p) > 0; {
			n := min(len(p), 256<<10)
			if err := w.Append(p[:n]); err != nil {
				b.Fatal(err)
			}
			p = p[n:]
		}
		w.Close()
	}
}

// BenchmarkWriter_SmallAppend: what keeping adds to a refresh after an
// agent appended one 1 KB line to a session of 10 MB: the kept copy
// opened for writing (its head and frame index read), the line appended
// as a frame, the copy closed.
func BenchmarkWriter_SmallAppend(b *testing.B) {
	st := Open(filepath.Join(b.TempDir(), "kept"))
	w, err := st.Writer("host", "/s/a.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	data := lines(0, 90000) // about 10 MB
	for p := data; len(p) > 0; {
		n := min(len(p), 256<<10)
		w.Append(p[:n])
		p = p[n:]
	}
	w.Close()
	line := append(bytes.Repeat([]byte("x"), 1023), '\n')
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := st.Writer("host", "/s/a.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Cut(w.Len()); err != nil {
			b.Fatal(err)
		}
		if err := w.Append(line); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}
