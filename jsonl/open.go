package jsonl

import (
	"io/fs"
	"os"

	"github.com/grove-sessions/grove/errs"
)

// Opening a session file: only a regular file (or a symlink to one) is
// read; anything else, and every OS error, is an io_error (SPEC §8).

// ReadFile reads the session file at path and returns its entries, each with
// its own Raw (SPEC §2, §3). In Strict mode the first bad line is returned
// as an *errs.Error with Code bad_line; an OS error, or a path that is not a
// regular file, is an *errs.Error with Code io_error.
func ReadFile(path string, mode Mode) ([]Entry, *Result, error) {
	f, size, err := OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var entries []Entry
	res, err := ReadOpen(f, size, Options{Path: path, Mode: mode, KeepRaw: true}, func(e Entry) error {
		entries = append(entries, e)
		return nil
	})
	return entries, res, err
}

// NotRegular says what a file of mode m is that is not a regular file, in
// words and with its whole mode as ls shows it, permission bits included:
// "not a regular file but a directory (drwxr-x---)", "... a FIFO
// (prw-r--r--)".
func NotRegular(m fs.FileMode) string {
	kind, letter := "a special file", "?"
	switch {
	case m.IsDir():
		kind, letter = "a directory", "d"
	case m&fs.ModeSymlink != 0:
		kind, letter = "a symbolic link", "l"
	case m&fs.ModeNamedPipe != 0:
		kind, letter = "a FIFO", "p"
	case m&fs.ModeCharDevice != 0:
		kind, letter = "a character device", "c"
	case m&fs.ModeDevice != 0:
		kind, letter = "a block device", "b"
	case m&fs.ModeSocket != 0:
		kind, letter = "a socket", "s"
	}
	return "not a regular file but " + kind + " (" + letter + m.Perm().String()[1:] + ")"
}

// OpenFile opens the session file at path for reading and returns it with
// its size in bytes. Only a regular file (or a symlink to one) is opened: a
// FIFO, device or directory would block or never end, so it is an io_error.
func OpenFile(path string) (*os.File, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, errs.Wrap(errs.CodeIO, err, "cannot read session file: "+osReason(err)).In(path)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, errs.New(errs.CodeIO, NotRegular(fi.Mode())+"; session files are plain files").In(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, errs.Wrap(errs.CodeIO, err, "cannot read session file: "+osReason(err)).In(path)
	}
	return f, fi.Size(), nil
}

// osReason is the operating system's reason without the repeated path.
func osReason(err error) string { return errs.Reason(err) }
