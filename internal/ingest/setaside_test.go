package ingest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// SetAside moves the index and its sidecars under one new name, byte for
// byte; a taken name, of the index or of any sidecar, is never overwritten
// but counted past; nothing is deleted.
func TestSetAside_NamesAndSidecars(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 30, 0, 0, time.FixedZone("CET", 3600))
	defer func(old func() time.Time) { now = old }(now)
	now = func() time.Time { return at }

	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return string(b)
	}
	stem := db + ".damaged-20261130T073000Z" // UTC

	write(db, "first index")
	write(db+"-wal", "first wal")
	write(db+"-shm", "first shm")
	backup, err := SetAside(db)
	if err != nil || backup != stem {
		t.Fatalf("SetAside = %q, %v; want %q", backup, err, stem)
	}
	if read(stem) != "first index" || read(stem+"-wal") != "first wal" || read(stem+"-shm") != "first shm" {
		t.Fatalf("the backup does not hold the index and its sidecars")
	}
	for _, s := range []string{"", "-wal", "-shm", "-journal"} {
		if _, err := os.Lstat(db + s); err == nil {
			t.Errorf("%s%s is still there", db, s)
		}
	}
	if _, err := os.Lstat(stem + "-journal"); err == nil {
		t.Errorf("SetAside made a -journal that did not exist")
	}

	// The same second again: the name is taken, so is "-2"'s -journal.
	write(db, "second index")
	write(db+"-journal", "second journal")
	write(stem+"-2-journal", "a stray file")
	backup, err = SetAside(db)
	if err != nil || backup != stem+"-3" {
		t.Fatalf("second SetAside = %q, %v; want %q", backup, err, stem+"-3")
	}
	if read(stem+"-3") != "second index" || read(stem+"-3-journal") != "second journal" {
		t.Fatalf("the second backup does not hold the second index and its journal")
	}
	if read(stem) != "first index" || read(stem+"-wal") != "first wal" || read(stem+"-2-journal") != "a stray file" {
		t.Fatalf("the second SetAside overwrote an earlier file")
	}

	// Nothing to set aside is an error, and moves nothing.
	if _, err := SetAside(db); err == nil {
		t.Fatalf("SetAside of a missing file succeeded")
	}
}

// An index reached through a symlink is moved beside the file it points
// to; the symlink stays.
func TestSetAside_Symlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "data", "index.db")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte("index"), 0o644)
	os.WriteFile(real+"-wal", []byte("wal"), 0o644)
	link := filepath.Join(dir, "index.db")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	backup, err := SetAside(link)
	if err != nil || filepath.Dir(backup) != filepath.Dir(real) {
		t.Fatalf("SetAside(symlink) = %q, %v; want a name beside %s", backup, err, real)
	}
	if b, _ := os.ReadFile(backup); string(b) != "index" {
		t.Fatalf("backup holds %q", b)
	}
	if b, _ := os.ReadFile(backup + "-wal"); string(b) != "wal" {
		t.Fatalf("backup -wal holds %q", b)
	}
	if target, err := os.Readlink(link); err != nil || target != real {
		t.Fatalf("the symlink is %q, %v; want it kept", target, err)
	}
}
