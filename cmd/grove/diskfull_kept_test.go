package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keptBytes is the size of the files in the kept store beside the index
// at db (0 when there is none).
func keptBytes(t *testing.T, db string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(filepath.Join(filepath.Dir(db), "kept"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// A session whose kept copy does not fit on the disk: `grove index` fails
// with disk_full, and the bytes it kept of the session before the disk
// filled are taken back, not left to fill the disk for every later run
// (docs/indexing.md "A full disk": nothing grows); again on the same
// disk, the same. Once the session file is deleted, an index with room
// holds no part of it (no half copy adopted as a gone session).
func TestRun_DiskFullWhileKeeping(t *testing.T) {
	fsDir := mustSmallFS(t, "3m")
	root := filepath.Join(t.TempDir(), "sessions")
	rng := rand.New(rand.NewPCG(9, 9))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"dddddddd-1111-4222-8333-444444444444","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/w"}` + "\n")
	parent := "null"
	for i := range 120 { // 12 MB that zstd cannot shrink much
		text := make([]byte, 100_000)
		for j := range text {
			text[j] = letters[rng.IntN(len(letters))]
		}
		fmt.Fprintf(&b, `{"type":"message","id":"e%04d","parentId":%s,"timestamp":"2026-03-03T08:00:01.000Z","message":{"role":"user","content":"%s"}}`+"\n", i, parent, text)
		parent = fmt.Sprintf(`"e%04d"`, i)
	}
	file := filepath.Join(root, "big.jsonl")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(fsDir, "index.db")
	for run := 1; run <= 2; run++ {
		code, stdout, _ := binGrove(t, db, "--json", "index", "--root", root)
		mustDiskFull(t, fmt.Sprintf("run %d", run), code, stdout, fsDir)
		if !strings.Contains(stdout, "kept") {
			t.Logf("run %d: the disk filled outside the kept store: %s", run, stdout)
		}
		if n := keptBytes(t, db); n != 0 {
			t.Errorf("run %d failed with disk_full but left %d bytes in the kept store", run, n)
		}
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := binGrove(t, db, "--json", "index", "--root", root); code != 0 || strings.Contains(stdout, `"gone":`) {
		t.Errorf("grove index once the file is deleted = %d, %s %s; want 0 and nothing gone", code, stdout, stderr)
	}
}
