//go:build unix

package archive

import (
	"io/fs"
	"syscall"
)

// fileID is the identity of the file fi describes (a stat of path): its
// device and inode numbers; 0, 0 when fi carries none.
func fileID(path string, fi fs.FileInfo) (dev, ino int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Dev), int64(st.Ino)
	}
	return 0, 0
}

// openNoWait is the open flag that keeps opening a FIFO from waiting for
// a writer: O_NONBLOCK.
const openNoWait = syscall.O_NONBLOCK
