package index

import (
	"fmt"

	"github.com/grove-sessions/grove/errs"
)

// The hints and errors that several of the index's checks give, each
// made in one place.

// hintOtherDB is the hint of an index path grove refuses to use (not a
// grove index, not a regular file, a session file).
const hintOtherDB = "pass another --db path"

// newerIndexError is the newer_index error of the index at path, whose
// schema version a newer grove made: this one knows versions up to known.
func newerIndexError(path string, version, known int) *errs.Error {
	return errs.New(errs.CodeNewerIndex, fmt.Sprintf("the index has schema version %d, made by a newer grove (this one knows up to %d); refusing to change it", version, known)).In(path).WithHint("use the newer grove, or " + hintOtherDB)
}

// hintFreeSpace is the hint of a disk_full error for the file at path:
// free space on its file system (MountPoint), then run the command again.
func hintFreeSpace(path, again string) string {
	return "free space on " + MountPoint(path) + " and run " + again + " again"
}
