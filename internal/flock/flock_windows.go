//go:build windows

package flock

import (
	"os"

	"golang.org/x/sys/windows"
)

// ErrLocked is the error TryLock returns when another open file holds the
// lock: ERROR_LOCK_VIOLATION, LockFileEx's with LOCKFILE_FAIL_IMMEDIATELY.
var ErrLocked error = windows.ERROR_LOCK_VIOLATION

// lockOffset is the one byte locked: far past the end of any file (NTFS
// files stop below 2^48 bytes), so that the mandatory lock never covers a
// byte that a reader reads or a writer appends (package comment).
const lockOffset = 1 << 62

func region() *windows.Overlapped {
	return &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
}

func tryLock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, region())
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, region())
}
