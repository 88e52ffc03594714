//go:build unix

package archive

import "syscall"

// openNoWait is the open flag that keeps opening a FIFO from waiting for
// a writer: O_NONBLOCK.
const openNoWait = syscall.O_NONBLOCK
