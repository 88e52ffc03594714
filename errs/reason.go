package errs

import (
	"errors"
	"io/fs"
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
