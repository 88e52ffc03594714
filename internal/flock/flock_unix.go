//go:build unix

package flock

import (
	"os"

	"golang.org/x/sys/unix"
)

// ErrLocked is the error TryLock returns when another open file holds the
// lock: EWOULDBLOCK (the same errno as EAGAIN on Linux), flock(2)'s.
var ErrLocked error = unix.EWOULDBLOCK

func tryLock(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

func unlock(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_UN)
}
