package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
)

// stampFormat is the UTC time in a backup's name: 20261130T083000Z.
const stampFormat = "20060102T150405Z"

// now is the clock of SetAside, replaced by tests.
var now = time.Now

// SetAside renames the index file at dbPath, and those of its -wal, -shm
// and -journal files that exist, to dbPath.damaged-<UTC time> (plus the
// same suffixes), and returns the new name of the index file. A name that
// is taken, for any of the four files, is never overwritten: the next one
// gets a counter (.damaged-20261130T083000Z-2). Nothing is deleted or
// copied. When dbPath is a symlink, the file it points to is moved, beside
// itself, and the symlink is left dangling (the next Open creates the file
// where it points).
//
// It is for an index Open reported as damaged_index; it does not look at
// the file. Errors are io_error *errs.Error values; on one, files already
// moved stay moved, and dbPath may have both names (a hard link) but is
// never lost.
func SetAside(dbPath string) (backup string, err error) {
	src := dbPath
	if real, err := filepath.EvalSymlinks(dbPath); err == nil {
		src = real
	}
	fail := func(err error) (string, error) {
		return "", errs.Wrap(errs.CodeIO, err, "cannot set the damaged index aside: "+errs.PathReason(err)).In(dbPath)
	}
	if _, err := os.Lstat(src); err != nil {
		return fail(err)
	}
	stamp := now().UTC().Format(stampFormat)
	for n := 1; ; n++ {
		if n > 1000 {
			return fail(fmt.Errorf("%s.damaged-%s: 1000 backups of this second already", src, stamp))
		}
		backup = src + ".damaged-" + stamp
		if n > 1 {
			backup += "-" + strconv.Itoa(n)
		}
		if anyExists(backup) {
			continue
		}
		// The hard link claims the name atomically (it fails when the name
		// exists, where a rename would overwrite); where links are not
		// supported, the check above has to do.
		linked := true
		if err := os.Link(src, backup); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			linked = false
		}
		// The sidecars first: an index file that stayed behind without its
		// WAL is an older state of it, never a new index with an old WAL.
		for _, s := range sidecars {
			if _, err := os.Lstat(src + s); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err := os.Rename(src+s, backup+s); err != nil {
				return fail(err)
			}
		}
		if linked {
			err = os.Remove(src) // the bytes stay under backup, the same inode
		} else {
			err = os.Rename(src, backup)
		}
		if err != nil {
			return fail(err)
		}
		// The damaged copy holds every word the index did: 0600 (SPEC §6).
		files := []string{backup}
		for _, s := range sidecars {
			files = append(files, backup+s)
		}
		if err := index.Tighten(index.FileMode, nil, files...); err != nil {
			return fail(err)
		}
		return backup, nil
	}
}

// anyExists reports whether name or name plus one of the sidecar suffixes
// exists (a dangling symlink counts).
func anyExists(name string) bool {
	for _, s := range append([]string{""}, sidecars...) {
		if _, err := os.Lstat(name + s); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// OpenForWrite is Open for a command that writes the index: a damaged
// index (damaged_index: it is grove's, and SQLite cannot read it) is set
// aside with SetAside, warn is called with one line naming the backup, and
// a new, empty index is opened in its place, to be filled from the session
// files. warn may be nil; the Indexer keeps it for the notes of Index,
// Rebuild and Watch (a damaged index met later, a sources file that cannot
// be written).
//
// Errors are those of Open, but damaged_index; not_index and newer_index
// files are never moved or changed.
func OpenForWrite(ctx context.Context, dbPath string, warn func(msg string)) (*Indexer, error) {
	if index.IsURL(dbPath) { // PostgreSQL: no file to tighten or set aside
		ix, err := Open(ctx, dbPath)
		if ix != nil {
			ix.warn = warn
		}
		return ix, err
	}
	before, _ := os.Stat(dbPath)
	ix, err := Open(ctx, dbPath)
	if errs.CodeOf(err) != errs.CodeDamagedIndex {
		if err == nil {
			// Only once Open has said it is a grove index this grove may
			// write: a newer grove's or a foreign file is never changed.
			if terr := tightenIndex(dbPath, warn); terr != nil {
				ix.Close()
				return nil, terr
			}
			ix.warn = warn
			if before == nil {
				// A new index where one was deleted: the sources it
				// remembered beside it stay its own (deleting the index
				// loses nothing; grove rebuild reads them).
				carrySources(ctx, ix)
			}
		}
		return ix, err
	}
	if err := setAsideDamaged(dbPath, before, err, warn); err != nil {
		return nil, err
	}
	ix, err = Open(ctx, dbPath)
	if ix != nil {
		ix.warn = warn
		carrySources(ctx, ix)
	}
	return ix, err
}

// tightenIndex makes the index at dbPath and the files beside it (its
// SQLite sidecars, lock and sources files) 0600, with a note for each one changed
// (SPEC §6: an index made more open by an older grove is tightened on the
// next write).
func tightenIndex(dbPath string, warn func(string)) error {
	real := dbPath
	if r, err := filepath.EvalSymlinks(dbPath); err == nil {
		real = r
	}
	files := []string{real, LockPath(dbPath), SourcesPath(dbPath)}
	for _, s := range sidecars {
		files = append(files, real+s)
	}
	if err := index.Tighten(index.FileMode, warn, files...); err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot make the index private (0600): "+errs.PathReason(err)).In(dbPath)
	}
	return nil
}

// setAsideDamaged sets the damaged index at dbPath aside, unless the file
// there is no longer the one found damaged (seen, when known): another
// grove set it aside first and may already be filling a new one.
func setAsideDamaged(dbPath string, seen os.FileInfo, cause error, warn func(string)) error {
	if cur, err := os.Stat(dbPath); seen != nil && (err != nil || !os.SameFile(seen, cur)) {
		return nil
	}
	backup, err := SetAside(dbPath)
	if err != nil {
		return err
	}
	if warn != nil {
		warn(fmt.Sprintf("the index %s was damaged (%s); moved it to %s and building a new one from the session files",
			dbPath, index.DamageCause(cause), backup))
	}
	return nil
}
