//go:build unix

package main

import "syscall"

// umask sets the process's umask and returns the one before.
func umask(mask int) int { return syscall.Umask(mask) }

// mkfifo makes a FIFO at path with the permission bits perm.
func mkfifo(path string, perm uint32) error { return syscall.Mkfifo(path, perm) }
