package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/testutil"
)

// Two `grove append`s to one messages log at once, as two hooks of an
// agent fire together: the second, with --wait, waits for the first to let
// go of the file and then appends all of its input after the first's; the
// file is exactly the first input then the second, and the second's ids go
// on from the first's (L301…). Without --wait (or when the wait runs out)
// the second fails with locked at once, appending nothing.
func TestAppend_WaitForTheOtherWriter(t *testing.T) {
	bin := mustGroveBinary(t)
	dir := t.TempDir()
	file, db := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "i.db")
	a, b := testutil.AppendInput("messages", 300, 0, 7), testutil.AppendInput("messages", 300, 1, 8)
	half := bytes.IndexByte(a[len(a)/2:], '\n') + len(a)/2 + 1

	first := exec.Command(bin, "--db", db, "append", file)
	in, err := first.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	if _, err := in.Write(a[:half]); err != nil {
		t.Fatal(err)
	}
	// The first holds the file once its first half is in it.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(file); err == nil && fi.Size() == int64(half) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first grove append never wrote its first half:\n%s", firstErr.String())
		}
	}
	for _, args := range [][]string{{"append", file}, {"append", "--wait", "200ms", file}} {
		c := exec.Command(bin, append([]string{"--db", db}, args...)...)
		c.Stdin = bytes.NewReader(b)
		out, err := c.CombinedOutput()
		if code := c.ProcessState.ExitCode(); err == nil || code != 1 || !strings.Contains(string(out), "[locked]") {
			t.Errorf("grove %s while another writer holds the file: exit %d, want 1 and locked:\n%s", strings.Join(args, " "), code, out)
		}
	}
	second := exec.Command(bin, "--db", db, "--json", "append", "--wait", "2m", file)
	second.Stdin = bytes.NewReader(b)
	var secondOut, secondErr bytes.Buffer
	second.Stdout, second.Stderr = &secondOut, &secondErr
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the second is waiting now (if it is not yet, it waits later)
	if _, err := in.Write(a[half:]); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := first.Wait(); err != nil {
		t.Fatalf("the first grove append: %v\n%s", err, firstErr.String())
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("grove append --wait: %v\n%s", err, secondErr.String())
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]byte{}, a...), b...); !bytes.Equal(got, want) {
		t.Fatalf("the file is %d bytes, want the first input then the second (%d); first difference at %s", len(got), len(want), byteDiff(got, want))
	}
	var res appendResult
	if err := json.Unmarshal(secondOut.Bytes(), &res); err != nil || len(res.Appended) != 300 || res.Appended[0] != "L301" || res.Appended[299] != "L"+strconv.Itoa(600) {
		t.Errorf("grove append --wait answered %s (%v), want L301…L600", secondOut.String(), err)
	}
}
