package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/diskfree"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// IsDiskFull reports whether err says the file system had no room: the
// operating system's error for it anywhere in its chain (ENOSPC or EDQUOT
// on Unix; ERROR_DISK_FULL, ERROR_HANDLE_DISK_FULL or
// ERROR_DISK_QUOTA_EXCEEDED on Windows), SQLite's SQLITE_FULL (13), or
// SQLITE_IOERR_SHMSIZE (4874: the -shm file could not be made its size,
// which even a reader needs).
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	if noSpace(err) {
		return true
	}
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_FULL || se.Code() == sqlite3.SQLITE_IOERR_SHMSIZE)
}

// DiskFull returns err as a disk_full *errs.Error when IsDiskFull (SPEC §8;
// docs/indexing.md "A full disk"), else nil. Its Path is the file the operating system
// named, else that of a *errs.Error in the chain, else path (the index,
// for SQLite's SQLITE_FULL). wanted is the size in bytes of what was being
// written, 0 when not known. The hint names the file system's mount point
// and again, the command to run once there is room.
func DiskFull(path string, err error, wanted int64, again string) error {
	if !IsDiskFull(err) {
		return nil
	}
	if e, ok := err.(*errs.Error); ok && e.Code == errs.CodeDiskFull {
		if e.Hint == "" && again != "" { // made without the command's name (ingest.Indexer.Index)
			e.Hint = hintFreeSpace(e.Path, again)
		}
		return err
	}
	file := path
	var je *errs.Error
	var pe *os.PathError
	switch {
	case errors.As(err, &pe) && pe.Path != "":
		file = pe.Path
	case errors.As(err, &je) && je.Path != "":
		file = je.Path
	}
	msg := "the disk is full"
	if wanted > 0 {
		msg += fmt.Sprintf(": %d bytes could not be written", wanted)
	}
	msg += " (" + pathErrMsg(err) + ")"
	if again == "" {
		again = "the command"
	}
	return errs.Wrap(errs.CodeDiskFull, err, msg).In(file).WithHint(hintFreeSpace(file, again))
}

// freeBytes is the room left for an unprivileged writer on the file
// system holding path's directory, in bytes; ok is false when it cannot be
// told (some network and FUSE file systems report no sizes at all).
func freeBytes(path string) (free int64, ok bool) {
	return diskfree.Available(filepath.Dir(path))
}

// roomFor returns a disk_full error (errNoSpace, op naming what was not
// done) when the file system holding path has fewer than need bytes free;
// nil when it has them or cannot tell.
func roomFor(path, op string, need int64) error {
	if free, ok := freeBytes(path); ok && free < need {
		return &os.PathError{Op: op, Path: path, Err: errNoSpace}
	}
	return nil
}
