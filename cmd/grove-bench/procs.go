package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// procRun is one finished process: wall time and peak resident set.
type procRun struct {
	Wall   time.Duration
	PeakKB int64 // ru_maxrss of the process, kilobytes (Linux)
	Stdout []byte
}

// runProc runs name with args, stdin from in (may be nil), and returns its
// wall time and peak RSS. A non-zero exit is an error unless okExit lists
// the status (rg exits 1 when nothing matched).
func runProc(ctx context.Context, in io.Reader, name string, args []string, okExit ...int) (procRun, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, in
	start := time.Now()
	err := cmd.Run()
	r := procRun{Wall: time.Since(start), Stdout: out.Bytes()}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.PeakKB = ru.Maxrss
		}
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			for _, c := range okExit {
				if ee.ExitCode() == c {
					return r, nil
				}
			}
		}
		return r, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return r, nil
}
