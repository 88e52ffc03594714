package diskfree_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/grove-sessions/grove/internal/diskfree"
)

// A directory on a real file system has room to tell; a directory that
// does not exist, or a file system that reports no blocks (Linux's /proc),
// cannot be told, and callers then go ahead.
func TestAvailable(t *testing.T) {
	dir := t.TempDir()
	if n, ok := diskfree.Available(dir); !ok || n <= 0 {
		t.Errorf("Available(%s) = %d, %v; want some bytes, true", dir, n, ok)
	}
	// Writing a file takes room, and Available says so. Other writers on
	// the machine may free room at the same moment: three tries.
	const size = 64 << 20
	var drops []int64
	for try := range 3 {
		d := drop(t, dir, size, try)
		if d >= size/2 {
			drops = nil
			break
		}
		drops = append(drops, d)
	}
	if drops != nil {
		t.Errorf("Available(%s) went down by %v bytes over three %d-byte writes; want about that each time", dir, drops, size)
	}

	missing := filepath.Join(dir, "missing")
	if n, ok := diskfree.Available(missing); ok {
		t.Errorf("Available(%s) = %d, true; want false for a missing directory", missing, n)
	}
	if runtime.GOOS == "linux" {
		if n, ok := diskfree.Available("/proc"); ok {
			t.Errorf("Available(/proc) = %d, true; want false for a file system with no blocks", n)
		}
	}
}

// drop writes and syncs a file of size bytes in dir and returns how much
// Available went down meanwhile; the file is removed again.
func drop(t *testing.T, dir string, size, try int) int64 {
	t.Helper()
	before, _ := diskfree.Available(dir)
	name := filepath.Join(dir, fmt.Sprintf("filler-%d", try))
	defer os.Remove(name)
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, size)); err != nil {
		t.Skipf("cannot write %d bytes to %s: %v", size, dir, err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	after, ok := diskfree.Available(dir)
	if !ok {
		t.Fatalf("Available(%s) = %d, false after a write", dir, after)
	}
	return before - after
}
