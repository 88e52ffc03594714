//go:build unix

package main

import (
	"os"
	"syscall"

	"github.com/grove-sessions/grove/errs"
)

// execReplace makes grove's process prog with argv, in dir (execve): the
// agent gets grove's terminal, its process id and its signals, and grove
// is gone. Errors: io_error when dir cannot be entered or exec fails.
func execReplace(prog string, argv []string, dir string) error {
	if err := os.Chdir(dir); err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot enter the workspace: "+errs.Reason(err)).In(dir)
	}
	err := syscall.Exec(prog, argv, os.Environ())
	return errs.Wrap(errs.CodeIO, err, "cannot run "+prog+": "+errs.Reason(err)).In(prog)
}
