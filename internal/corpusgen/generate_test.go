package corpusgen

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// mustGenerate generates o into a fresh temporary directory.
func mustGenerate(tb testing.TB, o Options) (string, *Manifest) {
	tb.Helper()
	dir := tb.TempDir()
	m, err := Generate(context.Background(), dir, o)
	if err != nil {
		tb.Fatalf("Generate(%+v): %v", o, err)
	}
	return dir, m
}

// mustFiles returns every file under dir (relative path → bytes).
func mustFiles(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

var smallOptions = Options{Seed: 3, Size: 2_000_000, BigSession: 300_000, ChineseShare: 0.3,
	ImageRate: 0.5, DamageRate: 0.3, PlainShare: 0.3, ForkRate: 0.3}

// TestGenerate_Deterministic: the same options give the same bytes in
// every file, manifest included, whatever the number of workers.
func TestGenerate_Deterministic(t *testing.T) {
	a, b := smallOptions, smallOptions
	a.Workers, b.Workers = 1, 3
	dirA, _ := mustGenerate(t, a)
	dirB, _ := mustGenerate(t, b)
	fa, fb := mustFiles(t, dirA), mustFiles(t, dirB)
	if len(fa) != len(fb) || len(fa) < 3 {
		t.Fatalf("%d files, then %d", len(fa), len(fb))
	}
	for name, want := range fa {
		if got, ok := fb[name]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s differs between two runs (present: %v)", name, ok)
		}
	}
}

// TestGenerate_SeedMatters: another seed gives other sessions.
func TestGenerate_SeedMatters(t *testing.T) {
	o := smallOptions
	o.Seed++
	dirA, _ := mustGenerate(t, smallOptions)
	dirB, _ := mustGenerate(t, o)
	fa, fb := mustFiles(t, dirA), mustFiles(t, dirB)
	for name, b := range fb {
		if a, ok := fa[name]; ok && bytes.Equal(a, b) {
			t.Errorf("%s is the same for seeds %d and %d", name, smallOptions.Seed, o.Seed)
		}
	}
}

// TestGenerate_Size: the corpus lands within 10 % of Size + BigSession,
// and the big session within 10 % of its own size.
func TestGenerate_Size(t *testing.T) {
	_, sm := mustShared(t)
	for _, c := range []struct {
		name string
		o    Options
		m    *Manifest
	}{
		{"shared", sharedOptions, sm},
		{"100KB", Options{Seed: 1, Size: 100_000}, nil},
		{"1MB+big", Options{Seed: 2, Size: 1_000_000, BigSession: 500_000, ChineseShare: 1}, nil},
		{"3MB", Options{Seed: 3, Size: 3_000_000, DamageRate: 1, PlainShare: 0.5}, nil},
	} {
		m := c.m
		if m == nil {
			_, m = mustGenerate(t, c.o)
		}
		want := float64(c.o.Size + c.o.BigSession)
		if d := math.Abs(float64(m.Bytes)-want) / want; d > 0.10 {
			t.Errorf("%s: %d bytes, want %.0f ± 10%%", c.name, m.Bytes, want)
		}
		if c.o.BigSession > 0 {
			big := m.Files[0]
			if d := math.Abs(float64(big.Bytes-c.o.BigSession)) / float64(c.o.BigSession); !big.Big || d > 0.10 {
				t.Errorf("%s: first file %+v, want the big session of %d bytes ± 10%%", c.name, big, c.o.BigSession)
			}
		}
	}
}

// TestGenerate_ManySmallFiles: Files and MaxSession give exactly Files
// ordinary sessions, none much above the cap, no image; the same bytes
// twice; and a Size too small for Files stops at Size.
func TestGenerate_ManySmallFiles(t *testing.T) {
	o := Options{Seed: 4, Size: 10_000_000, Files: 300, MaxSession: 8 << 10, Workspaces: 5,
		ImageRate: 1, DamageRate: 0.05, PlainShare: 0.1, ForkRate: 0.1}
	dir, m := mustGenerate(t, o)
	if len(m.Files) != o.Files {
		t.Fatalf("%d files, want %d", len(m.Files), o.Files)
	}
	ws := map[string]bool{}
	for _, f := range m.Files {
		ws[f.Workspace] = true
		// The last entry may overshoot the target; no entry of a small
		// session is near 8 KB, so twice the cap is a loose bound.
		if f.Bytes > 2*o.MaxSession || f.Bytes < 2<<10 || f.Images > 0 {
			t.Errorf("%s: %d bytes, %d images; want at most about %d bytes, no image", f.Path, f.Bytes, f.Images, o.MaxSession)
		}
	}
	if len(ws) < 2 {
		t.Errorf("all %d files in %d workspaces", len(m.Files), len(ws))
	}
	_, m2 := mustGenerate(t, o)
	if m2.Bytes != m.Bytes || m2.Entries != m.Entries {
		t.Errorf("second run: %d bytes, %d entries; first %d, %d", m2.Bytes, m2.Entries, m.Bytes, m.Entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		t.Error(err)
	}
	o.Size = 50 * o.MaxSession
	if _, m := mustGenerate(t, o); len(m.Files) >= o.Files || len(m.Files) < 45 {
		t.Errorf("Size for about 50 files: %d files", len(m.Files))
	}
}

func TestGenerate_RefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Seed: 1, Size: 50_000}
	if _, err := Generate(context.Background(), dir, o); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("Generate into a non-empty dir: %v, want ErrNotEmpty", err)
	}
	o.Force = true
	if _, err := Generate(context.Background(), dir, o); err != nil {
		t.Fatalf("Generate with Force: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep")); err != nil {
		t.Errorf("Force removed a file it did not write: %v", err)
	}
}

func TestGenerate_BadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"nothing":         {},
		"negative size":   {Size: -1},
		"share above one": {Size: 1000, ChineseShare: 1.5},
		"NaN rate":        {Size: 1000, ForkRate: math.NaN()},
		"tiny big":        {BigSession: 10},
		"tiny cap":        {Size: 1000, MaxSession: 100},
		"negative files":  {Size: 1000, Files: -1},
	} {
		if _, err := Generate(context.Background(), t.TempDir(), o); !errors.Is(err, ErrBadOptions) {
			t.Errorf("%s: Generate(%+v) = %v, want ErrBadOptions", name, o, err)
		}
	}
}

func TestGenerate_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Generate(ctx, t.TempDir(), Options{Seed: 1, Size: 1_000_000}); !errors.Is(err, context.Canceled) {
		t.Errorf("Generate with a canceled context = %v, want context.Canceled", err)
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"10MB", 10_000_000, true}, {"1GB", 1_000_000_000, true}, {"3gb", 3_000_000_000, true},
		{"500 MB", 500_000_000, true}, {"1.5GB", 1_500_000_000, true}, {"1GiB", 1 << 30, true},
		{"64KiB", 64 << 10, true}, {"12345", 12345, true}, {"0", 0, true}, {"2k", 2000, true},
		{"", 0, false}, {"MB", 0, false}, {"-1MB", 0, false}, {"ten", 0, false}, {"NaN", 0, false},
		{"1e30GB", 0, false},
	} {
		got, err := ParseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !errors.Is(err, ErrBadSize) {
			t.Errorf("ParseSize(%q): error %v is not ErrBadSize", c.in, err)
		}
	}
}

// BenchmarkGenerate measures output throughput (MB/s is bytes written)
// for a 20 MB corpus with the default options.
func BenchmarkGenerate(b *testing.B) {
	o := DefaultOptions()
	o.Size, o.Force = 20_000_000, true
	dir := b.TempDir()
	for b.Loop() {
		m, err := Generate(context.Background(), dir, o)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(m.Bytes)
	}
}

// TestGenerate_ManySeeds runs many tiny corpora with every feature on, so
// that rare paths (a label before any entry, a damage in a session of two
// entries) are taken; each file must pass the checks of the shared corpus.
func TestGenerate_ManySeeds(t *testing.T) {
	t.Parallel()
	seeds := int64(400)
	if testing.Short() {
		seeds = 40
	}
	for seed := range seeds {
		o := Options{Seed: seed, Size: 16_000, ChineseShare: 0.5, DamageRate: 0.5, PlainShare: 0.3, ForkRate: 0.5}
		dir, m := mustGenerate(t, o)
		byPath := map[string]File{}
		for _, f := range m.Files {
			byPath[f.Path] = f
		}
		for _, f := range m.Files {
			checkJSON(t, dir, f)
			checkReader(t, dir, f)
			checkTree(t, dir, f)
			if f.Forked {
				checkFork(t, dir, f, byPath)
			}
		}
	}
}
