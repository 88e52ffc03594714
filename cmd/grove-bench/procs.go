package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// procRun is one finished process: wall time and peak resident set.
type procRun struct {
	Wall   time.Duration
	PeakKB int64 // peak resident set of the process, kilobytes (see peakRSS)
	Stdout []byte
}

// runProc runs name with args, stdin from in (may be nil), and returns its
// wall time and peak RSS. A non-zero exit is an error unless okExit lists
// the status (rg exits 1 when nothing matched).
func runProc(ctx context.Context, in io.Reader, name string, args []string, okExit ...int) (procRun, error) {
	return runCmd(exec.CommandContext(ctx, name, args...), in, okExit...)
}

// runProcDir is runProc with no stdin, in the working directory dir.
func runProcDir(ctx context.Context, dir, name string, args []string) (procRun, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	return runCmd(cmd, nil)
}

// runCmd runs cmd as runProc does.
func runCmd(cmd *exec.Cmd, in io.Reader, okExit ...int) (procRun, error) {
	name, args := cmd.Args[0], cmd.Args[1:]
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, in
	start := time.Now()
	err := cmd.Start()
	var hwm int64
	if err == nil {
		done := make(chan struct{})
		polled := make(chan int64)
		go func() { polled <- pollHWM(cmd.Process.Pid, done) }()
		err = cmd.Wait()
		close(done)
		hwm = <-polled
	}
	r := procRun{Wall: time.Since(start), Stdout: out.Bytes(), PeakKB: hwm}
	if cmd.ProcessState != nil && hwm == 0 {
		r.PeakKB = maxRSSKB(cmd.ProcessState)
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			for _, c := range okExit {
				if ee.ExitCode() == c {
					return r, nil
				}
			}
		}
		// grove --json reports its errors on stdout.
		said := strings.TrimSpace(errb.String())
		if said == "" {
			said = strings.TrimSpace(string(r.Stdout))
		}
		if len(said) > 2000 {
			said = said[:2000] + "…"
		}
		return r, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, said)
	}
	return r, nil
}

// pollHWM samples VmHWM (the peak resident set of the process's own memory)
// from /proc/PID/status every 2 ms until done, and returns the last value
// read, in kilobytes; 0 when none could be read. ru_maxrss is no use here:
// Linux carries the parent's high-water mark into a child across the
// vfork and exec that os/exec uses, so every child would look at least as
// big as the harness. Sampling misses at most the last 2 ms of growth.
func pollHWM(pid int, done <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var last int64
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			if v := statusKB(string(b), "VmHWM:"); v > 0 {
				last = v
			}
		}
		select {
		case <-done:
			return last
		case <-tick.C:
		}
	}
}

// statusKB reads a "Key:   123 kB" line of /proc/PID/status.
func statusKB(status, key string) int64 {
	i := strings.Index(status, key)
	if i < 0 {
		return 0
	}
	var v int64
	fmt.Sscanf(status[i+len(key):], "%d", &v)
	return v
}
