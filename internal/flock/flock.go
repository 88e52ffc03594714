package flock

import "os"

// TryLock takes the exclusive writer lock on f without waiting. When
// another open file holds it, the error is the operating system's as it
// is, and errors.Is(err, ErrLocked) is true; any other error is a failure
// to lock (a file system without locks, a closed file). Taking the lock
// again through the same f succeeds on Unix and fails on Windows: callers
// take it once per open.
func TryLock(f *os.File) error {
	if f == nil {
		return os.ErrInvalid
	}
	return tryLock(f)
}

// Unlock releases the lock TryLock took on f. Closing f releases it too,
// so Unlock is needed only to release it while f stays open.
func Unlock(f *os.File) error {
	if f == nil {
		return os.ErrInvalid
	}
	return unlock(f)
}
