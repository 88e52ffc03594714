//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// mayWrite returns why this user may not write the regular file at path
// (fi is its stat), or nil: access(2) with W_OK, which knows the file's
// owner, group, mode and ACLs.
func mayWrite(path string, fi fs.FileInfo) error {
	return syscall.Access(path, 2 /* W_OK */)
}
