package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/term"

	"github.com/grove-sessions/grove/archive"
)

// The progress bar of grove index (docs/commands.md "grove index") shows
// files and megabytes once a run has enough to read, and nothing for a
// small refresh.
func TestProgressReporter(t *testing.T) {
	var b bytes.Buffer
	r := newProgressReporter(&b)
	r.update(archive.Progress{FilesTotal: 2, BytesTotal: 1 << 20})
	r.update(archive.Progress{Files: 1, FilesTotal: 2, Bytes: 1 << 19, BytesTotal: 1 << 20})
	r.finish()
	if b.Len() != 0 {
		t.Fatalf("a 1 MB refresh drew %q, want nothing", b.String())
	}
	r = newProgressReporter(&b)
	r.throttle = 0
	r.update(archive.Progress{FilesTotal: 40, BytesTotal: 200 << 20})
	r.update(archive.Progress{Files: 12, FilesTotal: 40, Bytes: 60 << 20, BytesTotal: 200 << 20})
	out := b.String()
	for _, want := range []string{"indexing 12/40 files", "MB"} {
		if !strings.Contains(out, want) {
			t.Fatalf("progress drew %q, want %q in it", out, want)
		}
	}
	r.finish()
}

// Without a terminal on stderr, grove index prints no progress at all.
func TestIndex_NoProgressWithoutTerminal(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"grove", "--db", dir + "/index.db", "index", "--root", "../../testdata/pi"}, &out, &errb)
	if code != 0 || errb.Len() != 0 {
		t.Fatalf("grove index = %d, stderr %q; want 0 and nothing on stderr", code, errb.String())
	}
	if !strings.Contains(out.String(), "3 files: 3 indexed") {
		t.Fatalf("summary %q, want one line saying 3 files were indexed", out.String())
	}
}

// The bar's percentage only grows: not when a second pass starts from 0
// bytes, nor when the total is estimated again.
func TestProgressReporter_NeverBack(t *testing.T) {
	var b bytes.Buffer
	r := newProgressReporter(&b)
	r.throttle = 0
	last := -1.0
	for i, p := range []archive.Progress{
		{FilesTotal: 10, BytesTotal: 100 << 20},
		{Files: 5, FilesTotal: 10, Bytes: 60 << 20, BytesTotal: 100 << 20},
		{Files: 0, FilesTotal: 10, Bytes: 0, BytesTotal: 100 << 20},          // a second pass
		{Files: 6, FilesTotal: 10, Bytes: 70 << 20, BytesTotal: 200 << 20},   // the total doubled
		{Files: 7, FilesTotal: 10, Bytes: 130 << 20, BytesTotal: 200 << 20},  // 65%
		{Files: 10, FilesTotal: 10, Bytes: 100 << 20, BytesTotal: 100 << 20}, // done
		{Files: 10, FilesTotal: 10, Bytes: 300 << 20, BytesTotal: 100 << 20}, // more than the total
	} {
		r.update(p)
		got := r.bar.State().CurrentPercent
		if got < last {
			t.Fatalf("update %d (%+v): the bar went back from %.3f to %.3f", i, p, last, got)
		}
		last = got
	}
	if last != 1 {
		t.Fatalf("the bar ends at %.3f, want 1", last)
	}
	r.finish()
}

// On a terminal whose size is 0 (a pty nobody sized), the bar falls back
// to a fixed width instead of drawing an empty "||".
func TestProgressReporter_UnsizedTerminal(t *testing.T) {
	master, slave := openPTY(t)
	defer master.Close()
	if cols, _, err := term.GetSize(int(slave.Fd())); err != nil || cols != 0 {
		t.Skipf("the new pty has size %d (%v), want 0", cols, err)
	}
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(master) // EIO once the terminal side is closed
		read <- string(b)
	}()
	r := newProgressReporter(slave)
	r.throttle = 0
	r.update(archive.Progress{FilesTotal: 40, BytesTotal: 200 << 20})
	r.update(archive.Progress{Files: 12, FilesTotal: 40, Bytes: 60 << 20, BytesTotal: 200 << 20})
	slave.Close()
	out := <-read
	if !strings.Contains(out, "indexing 12/40 files") {
		t.Fatalf("progress drew %q, want the description", out)
	}
	if strings.Contains(out, "||") || !regexp.MustCompile(`\|[^|\r\n]{10,}\|`).MatchString(out) {
		t.Fatalf("progress drew %q, want a bar at least 10 columns wide between its | marks", out)
	}
}
