//go:build unix

// The private modes of SPEC §6 are Unix permission bits; on Windows they
// mean no more than "not read-only" (index.Tighten).

package ingest_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// withUmask sets the process's umask for the rest of the test. Tests that
// use it are never parallel: the umask is the whole process's.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// mustMode fails unless the file at path has exactly the permission bits want.
func mustMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s is %04o, want %04o", path, got, want)
	}
}

// TestModes_NewIndexPrivate: under a loose umask (000) and the usual one
// (022), the directory grove creates for the index is 0700 and the index,
// its -wal, -shm and lock files 0600, checked while the index is open so the
// sidecars exist; a rebuild leaves it so (SPEC §6: 0600 and 0700 whatever
// the umask).
func TestModes_NewIndexPrivate(t *testing.T) {
	for _, mask := range []int{0o000, 0o022} {
		t.Run(fmt.Sprintf("umask%03o", mask), func(t *testing.T) {
			withUmask(t, mask)
			ctx := context.Background()
			dir := t.TempDir()
			roots := filepath.Join(dir, "sessions")
			testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), roots, "v3-tree.jsonl")
			dbPath := filepath.Join(dir, "made", "by", "grove", "index.db")
			a, err := ingest.OpenForWrite(ctx, dbPath, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			opts := ingest.IndexOptions{Roots: []string{roots}}
			if _, err := a.Index(ctx, opts); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{"made", "made/by", "made/by/grove"} {
				mustMode(t, filepath.Join(dir, d), 0o700)
			}
			for _, f := range []string{"", "-wal", "-shm", ".lock"} {
				mustMode(t, dbPath+f, 0o600)
			}
			// The rebuild file is an index made by the same Open.
			tmp := ingest.RebuildPath(dbPath)
			b, err := ingest.Open(ctx, tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{""} {
				mustMode(t, tmp+f, 0o600)
			}
			b.Close()
			os.Remove(tmp)
			if _, err := ingest.Rebuild(ctx, dbPath, ingest.RebuildOptions{Roots: opts.Roots, Files: opts.Files}); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"", "-wal", "-shm", ".lock"} {
				mustMode(t, dbPath+f, 0o600)
			}
		})
	}
}

// TestModes_StricterUmaskWins: umask 077 still gives 0600, and 0277 takes
// the owner's write bit too (grove never chmods a new file up).
func TestModes_StricterUmaskWins(t *testing.T) {
	withUmask(t, 0o077)
	dbPath := filepath.Join(t.TempDir(), "d", "index.db")
	a, err := ingest.OpenForWrite(context.Background(), dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	mustMode(t, dbPath, 0o600)
	mustMode(t, filepath.Dir(dbPath), 0o700)
}

// TestModes_OpenIndexTightened: an index an older grove left 0644 (its
// lock file and WAL too) is made 0600 by the next write, with a note naming
// each file and both modes; a damaged one set aside gets a 0600 backup.
func TestModes_OpenIndexTightened(t *testing.T) {
	withUmask(t, 0o022)
	ctx := context.Background()
	dir := t.TempDir()
	dbPath, _ := mustGroveIndex(t, dir)
	testutil.MustWriteFile(t, dir, "index.db.lock", nil)
	for _, f := range []string{dbPath, dbPath + ".lock"} {
		if err := os.Chmod(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var notes []string
	a, err := ingest.OpenForWrite(ctx, dbPath, func(m string) { notes = append(notes, m) })
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	mustMode(t, dbPath, 0o600)
	mustMode(t, dbPath+".lock", 0o600)
	joined := strings.Join(notes, "\n")
	for _, want := range []string{"tightened " + dbPath + " from 0644 to 0600", "tightened " + dbPath + ".lock from 0644 to 0600"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}

	// A damaged index (page 1 overwritten) that was 0644: the backup is 0600.
	b, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[100:4096], strings.Repeat("garbage!", 512))
	if err := os.WriteFile(dbPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dbPath, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err = ingest.OpenForWrite(ctx, dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	backups, _ := filepath.Glob(dbPath + ".damaged-*")
	if len(backups) == 0 {
		t.Fatal("no .damaged-* backup")
	}
	for _, f := range backups {
		mustMode(t, f, 0o600)
	}
	mustMode(t, dbPath, 0o600)
}
