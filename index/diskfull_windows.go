//go:build windows

package index

import (
	"errors"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// errNoSpace is the error a commit refused for lack of room carries
// (roomToFold): the one the operating system gives for a full disk.
var errNoSpace error = windows.ERROR_DISK_FULL

// noSpace reports whether Windows' error for a full disk or an exceeded
// quota is anywhere in err's chain.
func noSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, windows.ERROR_DISK_QUOTA_EXCEEDED)
}

// MountPoint is the root of the volume holding path, or the folder it is
// mounted on (GetVolumePathName: `C:\`, `\\server\share\`); path's
// directory when that cannot be told.
func MountPoint(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Dir(path)
	}
	p, err := windows.UTF16PtrFromString(abs)
	if err != nil {
		return filepath.Dir(abs)
	}
	buf := make([]uint16, max(len(abs), windows.MAX_PATH)+2)
	if err := windows.GetVolumePathName(p, &buf[0], uint32(len(buf))); err != nil {
		return filepath.Dir(abs)
	}
	return windows.UTF16ToString(buf)
}
