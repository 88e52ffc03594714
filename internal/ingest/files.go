package ingest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
)

// The files grove keeps beside an index at P, each 0600 as the index is
// (SPEC §6): SQLite's sidecars, the lock, the list of sources, the index a
// rebuild builds, and the damaged indexes SetAside keeps. Their names are
// made here, and CheckIndexTarget keeps an export from writing over any.

// sidecars are the files SQLite keeps beside an index: they belong to it
// and move with it. A -wal left beside a new index would be replayed into
// it, and a -journal rolled back into it.
var sidecars = []string{"-wal", "-shm", "-journal"}

// LockPath is the lock file of the index at dbPath: "<dbPath>.lock".
func LockPath(dbPath string) string { return dbPath + ".lock" }

// RebuildPath is where `grove rebuild` builds the new index beside the
// one at dbPath: "<dbPath>.rebuild".
func RebuildPath(dbPath string) string { return dbPath + ".rebuild" }

// SourcesPath is "<dbPath>.sources": the sources of the index at dbPath,
// one "root PATH" or "file PATH" a line, kept outside the SQLite file so
// that `grove rebuild` knows what to read even when the page holding the
// sources table is what is damaged (SPEC §6: the command an error about
// a damaged index names repairs it). 0600.
func SourcesPath(dbPath string) string { return dbPath + ".sources" }

// RemoveIndexFiles removes the index at path and every file grove keeps
// beside it: its SQLite sidecars, its lock and sources files. It is for an
// index this process made and nothing else knows: a half-built rebuild
// index, or the empty index a failed `grove rebuild` made where there was
// none. Errors are io_error *errs.Error values; files already gone are
// not one.
func RemoveIndexFiles(path string) error { return removeIndexFiles(path) }

// removeIndexFiles removes a half-built index left by an interrupted
// rebuild: the file, its SQLite sidecars, its lock file, the search text
// of its build (index.TextPath) and the copy of the index a cold build
// makes before its swap (coldIndex). Only grove makes files by that name.
func removeIndexFiles(path string) error {
	for _, s := range append(append([]string{""}, sidecars...), ".lock", ".sources", ".text", ".text-journal", ".before", ".before-journal") {
		if err := os.Remove(path + s); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errs.Wrap(errs.CodeIO, err, "cannot remove what an interrupted rebuild left: "+errs.PathReason(err)).In(path + s)
		}
	}
	return nil
}

// indexFiles are the files grove keeps beside an index at P, as suffixes
// of P, with what each is: SQLite's sidecars (see sidecars), the lock
// (LockPath), the list of sources (SourcesPath). The rebuild's index
// (RebuildPath) has the same again, and SetAside's backups are
// P.damaged-<time> plus the same.
var indexFiles = []struct{ suffix, what string }{
	{"", "the index file"},
	{"-wal", "the write-ahead log"},
	{"-shm", "the shared-memory file"},
	{"-journal", "the rollback journal"},
	{".lock", "the lock file"},
	{".sources", "the list of sources"},
}

// CheckIndexTarget refuses an export target that would replace the index
// at dbPath or one of its files: a would_replace_index *errs.Error naming
// target and which file it is, when target, by real path (symlinks in it
// resolved, or in its directory when it does not exist yet) or by device
// and inode (a hard link),
//
//   - is dbPath, or dbPath's -wal, -shm, -journal, .lock or .sources
//     file, for dbPath as given and as its real path (SQLite keeps its
//     sidecars beside the real file);
//   - is one of those of dbPath.rebuild, the index a rebuild is making;
//   - begins with dbPath.damaged-, an index SetAside kept, or its files;
//   - or is any grove index (see index.IsIndexFile), wherever it is.
//
// A file that merely lies beside the index under another name is fine.
func CheckIndexTarget(dbPath, target string) error {
	refuse := func(why string) error {
		return errs.New(errs.CodeWouldReplaceIndex, "refusing to replace grove's index, even with --force: "+why).In(target).WithHint("choose another --out; the index (--db, GROVE_DB) and the files beside it are grove's own")
	}
	real := realPath(target)
	tfi, terr := os.Stat(target)
	var bases []string
	for _, b := range []string{dbPath, realPath(dbPath)} {
		if abs, err := filepath.Abs(b); err == nil && !slices.Contains(bases, abs) {
			bases = append(bases, abs)
		}
	}
	for _, base := range bases {
		for _, pre := range []string{"", ".rebuild"} {
			for _, f := range indexFiles {
				name := base + pre + f.suffix
				same := realPath(name) == real
				if !same && terr == nil {
					if fi, err := os.Stat(name); err == nil && os.SameFile(fi, tfi) {
						same = true
					}
				}
				if !same {
					continue
				}
				what := f.what + " of the index " + dbPath
				if f.suffix == "" {
					what = "the index this command uses, " + dbPath
				}
				if pre != "" {
					what = f.what + " of the index `grove rebuild` builds beside " + dbPath
					if f.suffix == "" {
						what = "the index `grove rebuild` builds beside " + dbPath
					}
				}
				if name != real {
					what += " (" + filepath.Base(name) + ")"
				}
				return refuse("it is " + what)
			}
		}
		damaged := filepath.Base(base) + ".damaged-"
		if filepath.Dir(real) == realPath(filepath.Dir(base)) && strings.HasPrefix(filepath.Base(real), damaged) {
			return refuse("it is a damaged index grove set aside, or one of its files (" + damaged + "*)")
		}
		if terr == nil {
			if des, err := os.ReadDir(filepath.Dir(base)); err == nil {
				for _, de := range des {
					if !strings.HasPrefix(de.Name(), damaged) {
						continue
					}
					if fi, err := os.Stat(filepath.Join(filepath.Dir(base), de.Name())); err == nil && os.SameFile(fi, tfi) {
						return refuse("it is a damaged index grove set aside, or one of its files (" + de.Name() + ")")
					}
				}
			}
		}
	}
	if index.IsIndexFile(target) {
		return refuse("it is a grove index (a SQLite file with grove's application id)")
	}
	return nil
}

// realPath is path made absolute with its symlinks resolved: those of the
// whole path when it exists, else those of its directory (a file not made
// yet), else path made absolute as it is.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	} else if d, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(d, filepath.Base(path))
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
