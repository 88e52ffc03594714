//go:build !unix

package main

// execReplace runs prog with argv in dir as a child with grove's standard
// streams and waits, since the system cannot replace a process's program
// (Windows): grove exits with the child's status (childExit).
func execReplace(prog string, argv []string, dir string) error { return runChild(prog, argv, dir) }
