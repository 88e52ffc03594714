//go:build unix

package ingest

import (
	"io/fs"
	"syscall"
)

// FileID is the identity of the file fi describes (a stat of path): its
// device and inode numbers; 0, 0 when fi carries none.
func FileID(path string, fi fs.FileInfo) (dev, ino int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Dev), int64(st.Ino)
	}
	return 0, 0
}
