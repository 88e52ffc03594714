package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/grove-sessions/grove/internal/iox"
)

// serveProc is a running grove serve.
type serveProc struct {
	cmd       *exec.Cmd
	url       string // "http://127.0.0.1:PORT/"
	firstPass time.Duration
	passLine  string
	peakReset bool
	stderr    *iox.LockedBuffer
	waited    chan error
	once      sync.Once
	stopErr   error
}

var (
	serveURLLine  = regexp.MustCompile(`^grove serve: (http://\S+/) `)
	servePassLine = regexp.MustCompile(`^\d\d:\d\d:\d\d \d+ files?: `)
)

// startServe starts `grove --db DB serve --addr 127.0.0.1:0 --root …` and
// waits for its URL and the line of its first pass.
func startServe(ctx context.Context, grove, db string, roots []string) (*serveProc, error) {
	args := []string{"--db", db, "serve", "--addr", "127.0.0.1:0"}
	for _, r := range roots {
		args = append(args, "--root", r)
	}
	cmd := exec.Command(grove, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &serveProc{cmd: cmd, stderr: &iox.LockedBuffer{}, waited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := make(chan string, 1024) // what comes before the first pass is kept
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // nobody waits any more: drop it
			}
		}
		close(lines)
		p.waited <- cmd.Wait()
	}()
	timeout := time.NewTimer(serveFirstPass)
	defer timeout.Stop()
	for p.passLine == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				return nil, fmt.Errorf("grove %s exited before its first pass: %v: %s", strings.Join(args, " "), <-p.waited, strings.TrimSpace(p.stderr.String()))
			}
			if m := serveURLLine.FindStringSubmatch(l); m != nil {
				p.url = m[1]
			} else if p.url != "" && servePassLine.MatchString(l) {
				p.firstPass, p.passLine = time.Since(start), l
			}
		case <-timeout.C:
			p.stop()
			return nil, fmt.Errorf("grove serve printed no first pass in %s: %s", serveFirstPass, strings.TrimSpace(p.stderr.String()))
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		}
	}
	return p, nil
}

// resetPeak resets the server's VmHWM to its current RSS (Linux: "5" to
// /proc/PID/clear_refs), so that a later VmHWM is the peak since.
func (p *serveProc) resetPeak() error {
	err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.cmd.Process.Pid), []byte("5"), 0)
	p.peakReset = err == nil
	return err
}

// memStatus is VmRSS and VmHWM, MB.
type memStatus struct{ rss, hwm float64 }

func (p *serveProc) status() memStatus {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	return memStatus{float64(statusKB(string(b), "VmRSS:")) / 1024, float64(statusKB(string(b), "VmHWM:")) / 1024}
}

// describe fills ss's id, leaf and counts from the server's /api.
func (p *serveProc) describe(ctx context.Context, ss *serveSession) error {
	var list struct {
		Sessions []struct {
			ID      string `json:"id"`
			Path    string `json:"path"`
			Entries int    `json:"entries"`
			Leaves  int    `json:"leaves"`
		} `json:"sessions"`
	}
	if err := p.getJSON(ctx, "api/sessions", &list); err != nil {
		return err
	}
	for _, x := range list.Sessions {
		if x.Path == ss.File {
			ss.ID, ss.Entries, ss.Leaves = x.ID, x.Entries, x.Leaves
		}
	}
	if ss.ID == "" {
		return fmt.Errorf("grove serve does not list %s among its %d sessions", ss.File, len(list.Sessions))
	}
	var leaves struct {
		Leaves []struct {
			ID     string `json:"id"`
			Depth  int    `json:"depth"`
			Active bool   `json:"active"`
		} `json:"leaves"`
	}
	if err := p.getJSON(ctx, "api/leaves?session="+url.QueryEscape(ss.ID), &leaves); err != nil {
		return err
	}
	for i, l := range leaves.Leaves {
		if l.Active || (i == 0 && ss.Leaf == "") {
			ss.Leaf, ss.Depth = l.ID, l.Depth
		}
	}
	if ss.Leaf == "" {
		return fmt.Errorf("%s: /api/leaves lists no leaf", ss.File)
	}
	return nil
}

func (p *serveProc) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, b)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// stop sends SIGINT and waits for the exit (killing it after watchStop);
// an exit other than 0 after SIGINT is an error. Safe to call twice.
func (p *serveProc) stop() error {
	p.once.Do(func() {
		p.cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-p.waited:
			p.stopErr = err
		case <-time.After(watchStop):
			p.cmd.Process.Kill()
			<-p.waited
			p.stopErr = fmt.Errorf("grove serve did not stop within %s of SIGINT: killed", watchStop)
		}
		var ee *exec.ExitError
		if errors.As(p.stopErr, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				p.stopErr = fmt.Errorf("grove serve died of %s: %s", ws.Signal(), strings.TrimSpace(p.stderr.String()))
			}
		}
	})
	return p.stopErr
}
