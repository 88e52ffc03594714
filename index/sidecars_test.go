package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveIdleSidecars: the empty -wal and the -shm an open that failed
// left are removed, but never while a connection (here one of this
// process's, which POSIX locks do not see, so a child's) has the index
// open, and never a -wal with frames in it.
func TestRemoveIdleSidecars(t *testing.T) {
	ctx := context.Background()
	abs := filepath.Join(t.TempDir(), "index.db")
	d, err := Open(ctx, abs)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"-wal", "-shm"} {
		if err := os.WriteFile(abs+s, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removeIdleSidecars(abs)
	for _, s := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(abs + s); err == nil {
			t.Errorf("%s%s is left after removeIdleSidecars on an idle index", abs, s)
		}
	}
	// A -wal with something in it stays.
	if err := os.WriteFile(abs+"-wal", []byte("frames"), 0o600); err != nil {
		t.Fatal(err)
	}
	removeIdleSidecars(abs)
	if _, err := os.Stat(abs + "-wal"); err != nil {
		t.Errorf("a -wal with bytes in it was removed: %v", err)
	}
}
