package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// Private modes (SPEC §6): the index and every file beside it are 0600, the
// directory grove creates for it 0700, whatever the umask. New files get
// them at creation (0600 & ~umask: a stricter umask still wins); an older
// index made more open is tightened by Tighten.
const (
	FileMode fs.FileMode = 0o600 // the index, its -wal, -shm, lock, rebuild and .damaged-* files
	DirMode  fs.FileMode = 0o700 // the directory grove creates for the index
)

// Tighten removes every permission bit beyond limit (FileMode or DirMode)
// from each of paths that exists and is not a symlink, and calls note (may
// be nil) once per file changed with "tightened PATH from 0644 to 0600".
// Bits the limit allows but the file lacks are never added. A path that is
// gone is skipped; the first chmod failure is returned as it is.
//
// On Windows it does nothing: there the mode bits are one read-only
// attribute (Go reports every writable file as 0666), and who may read a
// file is up to the ACLs it inherits from its folder, which grove leaves
// as they are.
func Tighten(limit fs.FileMode, note func(string), paths ...string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			continue
		}
		old := fi.Mode().Perm()
		if old&^limit == 0 {
			continue
		}
		if err := os.Chmod(p, old&limit); err != nil {
			return err
		}
		if note != nil {
			note(fmt.Sprintf("tightened %s from %04o to %04o (the index holds every word of every session)", p, old, old&limit))
		}
	}
	return nil
}
