//go:build unix

package index

import (
	"os"
	"syscall"
)

// lock takes a POSIX write lock on [start, start+n) of f without waiting,
// as SQLite's unix VFS locks (fcntl F_SETLK).
func lock(f *os.File, start, n int64) error {
	return syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &syscall.Flock_t{
		Type: syscall.F_WRLCK, Whence: 0, Start: start, Len: n})
}
