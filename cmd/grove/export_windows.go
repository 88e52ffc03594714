//go:build windows

package main

import (
	"fmt"
	"io/fs"
)

// mayWrite returns why the regular file at path (fi is its stat) may not
// be replaced, or nil: on Windows, its read-only attribute (the only mode
// bit Windows keeps: Go reports it as the missing 0200), which makes the
// rename over it fail. What the file's ACL refuses shows at the rename,
// as an io_error.
func mayWrite(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("the file is read-only: %w", fs.ErrPermission)
	}
	return nil
}
