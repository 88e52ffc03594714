package jsonl

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
)

// A line issued while every earlier line commits is still read in the
// dialect the file's first line decided. The hook lets the queue commit
// every queued line between issue's two reads (idle, then size); read the
// other way round, issue saw an empty size and an idle queue, took the
// file for new, and read a pi entry as a plain one ("timestamp: is a
// string, want a number"), as a fork under load once did.
func TestWriter_IssueWhileQueueDrains(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fork.jsonl")
	w, err := OpenWriter(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	issueHook = func(w *Writer) {
		for w.q.pending.Load() != 0 {
			runtime.Gosched()
		}
	}
	defer func() { issueHook = nil }()
	lines := []string{`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}`}
	parent := "null"
	for i := range 5 {
		lines = append(lines, fmt.Sprintf(`{"type":"message","id":"e%d","parentId":%s,"timestamp":"2026-01-01T00:00:0%dZ","message":{"role":"user","content":"hi"}}`, i, parent, i))
		parent = fmt.Sprintf(`"e%d"`, i)
	}
	var pending []*Pending
	for _, l := range lines {
		pending = append(pending, w.CopyAsync([]byte(l)))
	}
	for i, p := range pending {
		if err := p.Wait(); err != nil {
			t.Errorf("CopyAsync(line %d) = %v, want nil", i+1, err)
		}
	}
}
