package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// `grove append` of a 6 MB pipe into a messages log on a 2 MB disk: the
// lines that fit are appended, the rest fail with disk_full (exit 1), and
// the line the disk filled in the middle of is taken back, so the file is
// exactly the appended lines with no torn tail: it needs no repair, and
// the room the torn line held is free again. With room, appending the
// failed lines completes the file to the whole input, byte for byte.
func TestAppend_DiskFullTakesBackTheTornLine(t *testing.T) {
	fsDir := mustSmallFS(t, "2m")
	in := testutil.AppendInput("messages", 3000, 3, 21)
	file := filepath.Join(fsDir, "log.jsonl")
	res, stderr, err := pipeAppend(t, file, in)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || len(res.Failed) == 0 || res.Failed[0].Code != "disk_full" {
		t.Fatalf("grove append of %d bytes on a 2 MB disk: %v, %d appended, failed %v\n%s", len(in), err, len(res.Appended), res.Failed[:min(1, len(res.Failed))], stderr)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(in, []byte("\n"))
	if want := bytes.Join(lines[:len(res.Appended)], nil); !bytes.Equal(got, want) {
		t.Fatalf("the file is %d bytes; want exactly the %d lines appended (%d bytes), no torn line (first difference at %s)", len(got), len(res.Appended), len(want), byteDiff(got, want))
	}
	if rec := runJSON(t, "recover", file); rec["state"] != "ok" {
		t.Errorf("grove recover after the full disk: state %v, want ok (no tail to repair)", rec["state"])
	}
	// No torn line is left, so the message sends the user to free space
	// and append the rest, not to grove repair (which finds nothing to do).
	if m := res.Failed[0].Message; strings.Contains(m, "repair") || !strings.Contains(m, "grove append") {
		t.Errorf("the disk_full message: %q; want it to say to run grove append again, without grove repair", m)
	}
	if out, err := exec.Command("mount", "-o", "remount,size=64m", fsDir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s larger: %v %s", fsDir, err, out)
	}
	rest := bytes.Join(lines[res.Failed[0].Line-1:], nil)
	if res2, stderr, err := pipeAppend(t, file, rest); err != nil || len(res2.Failed) != 0 {
		t.Fatalf("grove append of the failed lines with room: %v %v\n%s", err, res2.Failed, stderr)
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, in) {
		t.Fatalf("after the rest was appended the file is %d bytes, the input %d; first difference at %s", len(got), len(in), byteDiff(got, in))
	}
}
