package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of the watch step.
const (
	// watchFirstPass is how long `grove watch` may take to print the line
	// of its first pass (over an index that is already up to date).
	watchFirstPass = 10 * time.Minute
	// watchStop is how long it may take to exit after SIGINT before it is
	// killed.
	watchStop = 30 * time.Second
	// userHZ is the unit of utime and stime in /proc/PID/stat: USER_HZ,
	// 100 on Linux whatever the kernel's own tick rate.
	userHZ = 100
)

// notMeasuredWatch is why the watch figures can be missing.
const notMeasuredWatch = "not measured: this grove has no watch command (grove watch --help failed)"

// watchIdle starts `grove watch` on the many-files corpus and its index
// (brought up to date first), waits for the line it
// prints on stdout after its first pass, then samples its CPU time and
// context switches over WatchIdle with nothing changing (near-zero CPU
// when idle), and stops it with SIGINT: how long it took to
// exit, and its exit status (want 0).
func (s *suite) watchIdle(ctx context.Context) error {
	const sec = "watch"
	switch {
	case runtime.GOOS != "linux":
		s.skip(sec, "idle CPU", "not measured: CPU time is read from /proc (Linux only)")
		return nil
	case s.cfg.RefreshFiles == 0:
		s.skip(sec, "idle CPU", "not measured: --refresh-files 0 (watch runs on the many-files corpus)")
		return nil
	}
	if _, err := runProc(ctx, nil, s.grove, []string{"watch", "--help"}); err != nil {
		s.skip(sec, "idle CPU", notMeasuredWatch)
		return nil
	}
	dir, db, _, err := s.filesCorpus(ctx)
	if err != nil {
		return err
	}
	// The index is brought up to date first (a no-op refresh after the
	// many-files step), so that the first pass has nothing to do.
	if _, _, err := s.groveIndex(ctx, db, dir); err != nil {
		return err
	}
	w, err := s.measureWatch(ctx, []string{"--db", db, "watch", "--root", dir}, s.cfg.WatchIdle)
	if err != nil {
		return err
	}
	f := figureOf(sec, "first pass (index up to date)", "ms", []float64{ms(w.firstPass)})
	f.Note = fmt.Sprintf("%d files; from start to the first line on stdout", s.cfg.RefreshFiles)
	if w.startLine != "" {
		f.Note += fmt.Sprintf("; stderr said %q", w.startLine)
	}
	s.add(f)
	f = figureOf(sec, "idle CPU", "% of a core", []float64{w.cpuPercent})
	f.Note = fmt.Sprintf("%d ticks of 1/%d s in %.1f s idle; %d lines printed meanwhile", w.ticks, userHZ, w.idle.Seconds(), w.idleLines)
	s.add(f)
	f = figureOf(sec, "idle context switches", "switches/s", []float64{float64(w.switches) / w.idle.Seconds()})
	f.Note = fmt.Sprintf("%d voluntary and involuntary, all threads", w.switches)
	s.add(f)
	f = figureOf(sec, "resident set while idle", "MB", []float64{float64(w.rssKB) / 1024})
	f.Note = fmt.Sprintf("peak %.1f MB", float64(w.peakKB)/1024)
	s.add(f)
	f = figureOf(sec, "exit after SIGINT", "ms", []float64{ms(w.stop)})
	f.Note = fmt.Sprintf("exit status %d", w.exitCode)
	if w.signal != "" {
		f.Note = "ended by the signal (" + w.signal + "), not by an exit"
	}
	if w.killed {
		f.Note = fmt.Sprintf("still running %s after SIGINT: killed", watchStop)
	}
	s.add(f)
	s.watchExit = &w.exitCode
	return nil
}

// watchRun is what measureWatch saw of one `grove watch` process.
type watchRun struct {
	startLine  string        // the first line on stderr
	firstPass  time.Duration // start to the first line on stdout
	idle       time.Duration // the sampled window
	ticks      int64         // CPU time in the window, 1/userHZ s
	cpuPercent float64       // of one core
	switches   int64         // context switches in the window, all threads
	idleLines  int           // lines printed on stdout in the window
	rssKB      int64         // VmRSS at the end of the window
	peakKB     int64         // VmHWM at the end of the window
	stop       time.Duration // SIGINT to exit
	exitCode   int           // -1 when ended by a signal
	signal     string        // the signal that ended it, if one did
	killed     bool          // by the harness, after watchStop
}

// measureWatch runs s.grove with args, waits for its first line on
// stdout, samples it over idle, then interrupts it and waits for it to
// exit. The process is killed on any error.
func (s *suite) measureWatch(ctx context.Context, args []string, idle time.Duration) (*watchRun, error) {
	cmd := exec.CommandContext(ctx, s.grove, args...)
	out, errs := newLineWriter(), newLineWriter()
	cmd.Stdout, cmd.Stderr = out, errs
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	done := false
	defer func() {
		if !done {
			cmd.Process.Kill()
			<-exited
		}
	}()
	fail := func(what string, err error) error {
		return fmt.Errorf("grove %s: %s: %v (stderr: %s)", strings.Join(args, " "), what, err, strings.Join(errs.all(), " | "))
	}
	w := &watchRun{}
	select {
	case <-out.first:
	case err := <-exited:
		done = true
		return nil, fail("exited before its first pass", err)
	case <-time.After(watchFirstPass):
		return nil, fail("no line on stdout", fmt.Errorf("%s after start", watchFirstPass))
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	w.firstPass = time.Since(start)
	pid := cmd.Process.Pid
	ticks0, err := procTicks(pid)
	if err != nil {
		return nil, err
	}
	sw0, lines0, t0 := procSwitches(pid), out.count(), time.Now()
	select {
	case <-time.After(idle):
	case err := <-exited:
		done = true
		return nil, fail("exited while idle", err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ticks1, err := procTicks(pid)
	if err != nil {
		return nil, err
	}
	w.idle = time.Since(t0)
	w.switches = max(0, procSwitches(pid)-sw0)
	w.idleLines = out.count() - lines0
	w.ticks = ticks1 - ticks0
	w.cpuPercent = float64(w.ticks) / userHZ / w.idle.Seconds() * 100
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		w.rssKB, w.peakKB = statusKB(string(b), "VmRSS:"), statusKB(string(b), "VmHWM:")
	}

	sent := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		return nil, err
	}
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(watchStop):
		cmd.Process.Kill()
		werr, w.killed = <-exited, true
	}
	done = true
	w.stop = time.Since(sent)
	if l := errs.all(); len(l) > 0 {
		w.startLine = l[0]
	}
	w.exitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		w.signal = ws.Signal().String()
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return nil, fail("wait", werr)
	}
	return w, nil
}

// procTicks is the CPU time (user and system, all threads) of process pid
// so far, in 1/userHZ s: fields 14 and 15 of /proc/PID/stat.
func procTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	var f []string
	if i >= 0 {
		f = strings.Fields(string(b[i+1:]))
	}
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, b)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64) // f[0] is field 3
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return ut + st, nil
}

// procSwitches is the number of context switches, voluntary and not, of
// every thread of pid so far (threads that ended are not counted).
func procSwitches(pid int) int64 {
	paths, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	var n int64
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			n += statusField(string(b), "voluntary_ctxt_switches") + statusField(string(b), "nonvoluntary_ctxt_switches")
		}
	}
	return n
}

// statusField reads the number of the line "key: N" of /proc/PID/status.
func statusField(status, key string) int64 {
	for _, line := range strings.Split(status, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == key {
			n, _ := strconv.ParseInt(strings.Fields(v + " 0")[0], 10, 64)
			return n
		}
	}
	return 0
}

// lineWriter collects what a process writes as lines; first is closed at
// the first complete line.
type lineWriter struct {
	mu    sync.Mutex
	part  []byte
	lines []string
	first chan struct{}
}

func newLineWriter() *lineWriter { return &lineWriter{first: make(chan struct{})} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines = append(w.lines, string(w.part[:i]))
		w.part = w.part[i+1:]
		if len(w.lines) == 1 {
			close(w.first)
		}
	}
}

func (w *lineWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.lines)
}

func (w *lineWriter) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}
