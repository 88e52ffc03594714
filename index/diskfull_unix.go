//go:build unix

package index

import (
	"errors"
	"path/filepath"
	"syscall"
)

// errNoSpace is the error a commit refused for lack of room carries
// (roomToFold): the one the operating system gives for a full disk.
var errNoSpace error = syscall.ENOSPC

// noSpace reports whether ENOSPC or EDQUOT is anywhere in err's chain.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// MountPoint is the directory at the top of the file system holding path
// (path itself or its nearest existing parent): the last directory, going
// up, on the same device. It is path's directory when that cannot be told.
func MountPoint(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Dir(path)
	}
	dir := abs
	var st syscall.Stat_t
	for syscall.Stat(dir, &st) != nil {
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Dir(abs)
		}
		dir = parent
	}
	dev := st.Dev
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		var pst syscall.Stat_t
		if syscall.Stat(parent, &pst) != nil || pst.Dev != dev {
			return dir
		}
		dir = parent
	}
}
