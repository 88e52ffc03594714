package errs

import (
	"errors"
	"io/fs"
	"syscall"
)

// Reason is the operating system's words for err without the path a
// *fs.PathError repeats ("no such file or directory", not "open /x: no such
// file or directory"): a message that names its file once, in Error.Path.
// Any other error gives its whole text.
func Reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// PathReason is Reason for an error of reaching a file by its path, with a
// symlink loop (ELOOP) said in words: "symlink loop (a link that leads
// back to itself)".
func PathReason(err error) string {
	if errors.Is(err, syscall.ELOOP) {
		return "symlink loop (a link that leads back to itself)"
	}
	return Reason(err)
}
