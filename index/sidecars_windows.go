//go:build windows

package index

import (
	"errors"
	"os"
)

// lock always fails on Windows, so removeIdleSidecars leaves the -wal and
// -shm files where they are: a wrong guess that no connection holds the
// index would remove files in use, while SQLite opens leftover ones as it
// finds them and removes them when its last connection closes.
func lock(f *os.File, start, n int64) error {
	return errors.ErrUnsupported
}
