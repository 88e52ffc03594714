package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// The progress bar (issue 5 item 7) shows files and megabytes once a run
// has enough to read, and nothing for a small refresh.
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
