//go:build windows

package archive

// openNoWait is the open flag that keeps opening a FIFO from waiting for
// a writer: none on Windows, where opening a named pipe never waits
// (CreateFile fails at once when no instance of the pipe is free).
const openNoWait = 0
