//go:build windows

package main

import "errors"

// Windows has neither a umask nor FIFOs in its file systems: the tests
// of private modes (SPEC §6) and of FIFOs at --out are Unix tests, and
// fail here.

// umask does nothing and returns 0.
func umask(mask int) int { return 0 }

// mkfifo fails: there are no FIFOs to make.
func mkfifo(path string, perm uint32) error { return errors.ErrUnsupported }
