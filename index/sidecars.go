package index

import (
	"errors"
	"io/fs"
	"os"
)

// SQLite's locking (os_unix.c): a connection to a WAL index holds a read
// lock on the SHARED range of the index file, and one on the DMS byte of
// the -shm file, for as long as it is open. lock (per platform) tries for
// a write lock on such a range.
const (
	sharedFirst = 0x40000000 + 2 // PENDING_BYTE + 2
	sharedSize  = 510
	shmDMS      = 120 + 8 // UNIX_SHM_BASE + SQLITE_SHM_NLOCK
)

// removeIdleSidecars removes the -wal and -shm files beside the index at
// abs when the -wal is empty (it holds nothing) and no connection, in any
// process, has the index open: what SQLite's last connection does when it
// closes, but which an open that failed for lack of room (the -shm could
// not be made its size, SQLITE_IOERR_SHMSIZE) leaves undone (docs/indexing.md "A
// full disk"). It never removes a -wal with frames in it, and does nothing
// when it cannot take the locks (always, on Windows). It is best effort:
// errors are ignored.
func removeIdleSidecars(abs string) {
	wal, shm := abs+"-wal", abs+"-shm"
	if fi, err := os.Lstat(wal); err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
		if !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
	db, err := os.OpenFile(abs, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer db.Close() // releases the locks
	if lock(db, sharedFirst, sharedSize) != nil {
		return // a connection has the index open
	}
	if s, err := os.OpenFile(shm, os.O_RDWR, 0); err == nil {
		defer s.Close()
		if lock(s, shmDMS, 1) != nil {
			return
		}
	}
	// Again under the locks: a connection that opened meanwhile has written
	// nothing without them.
	if fi, err := os.Lstat(wal); err == nil && fi.Size() != 0 {
		return
	}
	os.Remove(wal)
	os.Remove(shm)
}
