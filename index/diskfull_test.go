package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

// The error of a commit roomToFold refuses is disk_full on every platform
// (docs/indexing.md "A full disk"), however it is wrapped; other errors are not.
func TestIsDiskFull(t *testing.T) {
	refused := &os.PathError{Op: "commit", Path: "index.db", Err: errNoSpace}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"refused commit", refused, true},
		{"wrapped", fmt.Errorf("index session: %w", refused), true},
		{"in an errs.Error", errs.Wrap(errs.CodeIO, refused, "write"), true},
		{"missing file", &os.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}, false},
		{"permission", &os.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, false},
		{"nil", nil, false},
	} {
		if got := IsDiskFull(c.err); got != c.want {
			t.Errorf("IsDiskFull(%s: %v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// DiskFull names the file the operating system named and, in its hint,
// the mount point above it: a directory that holds the file.
func TestDiskFull_NamesFileAndMountPoint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "index.db")
	err := DiskFull("other.db", &os.PathError{Op: "commit", Path: file, Err: errNoSpace}, 4096, "grove index")
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.CodeDiskFull || e.Path != file {
		t.Fatalf("DiskFull = %v, want a disk_full error naming %s", err, file)
	}
	mp := MountPoint(file)
	if rel, rerr := filepath.Rel(mp, file); rerr != nil || strings.HasPrefix(rel, "..") || !filepath.IsAbs(mp) {
		t.Errorf("MountPoint(%s) = %s, want an absolute directory above it", file, mp)
	}
	if want := "free space on " + mp + " and run grove index again"; e.Hint != want || !strings.Contains(e.Message, "4096 bytes") {
		t.Errorf("DiskFull: message %q, hint %q; want the 4096 bytes and hint %q", e.Message, e.Hint, want)
	}
}
