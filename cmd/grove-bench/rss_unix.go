//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKB is the peak resident set of the finished process ps in
// kilobytes, from getrusage's ru_maxrss (kilobytes on Linux, bytes on
// macOS); 0 when it is not known. See pollHWM for why Linux prefers
// sampling.
func maxRSSKB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
