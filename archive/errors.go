package archive

import "github.com/grove-sessions/grove/index"

// DiskFull returns err as a disk_full *errs.Error when the file system had
// no room (ENOSPC, EDQUOT, SQLite's SQLITE_FULL; SPEC §8), else nil. Its
// Path is the file the operating system named, else that of an *errs.Error
// in the chain, else path. wanted is the size in bytes of what was being
// written, 0 when not known. The hint names the file system's mount point
// and again, the command to run once there is room.
func DiskFull(path string, err error, wanted int64, again string) error {
	return index.DiskFull(path, err, wanted, again)
}

// Explain is what a front end reports for err, an error of a command that
// used the index at dbPath: a full disk met anywhere becomes disk_full
// (with again, the command to run once there is room, in its hint), and
// damage met by a query or an ingest after the index opened becomes
// damaged_index naming dbPath (index.Classify: SQLite's corrupt and
// not-a-database codes; read-only and cannot-open become io_error). Any
// other error, and nil, is returned unchanged.
func Explain(dbPath string, err error, again string) error {
	if df := index.DiskFull(dbPath, err, 0, again); df != nil {
		err = df
	}
	return index.Classify(dbPath, err)
}
