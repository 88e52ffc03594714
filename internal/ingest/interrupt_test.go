package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// A Ctrl-C (ctx cancelled) part-way through an index run keeps the files
// finished before it, and the summary's Indexed counts exactly the
// sessions the index then holds: `grove index` repeats that count in its
// interrupted message (docs/indexing.md "Interrupted").
func TestIndex_InterruptedCountIsTrue(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	for i := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"session","version":3,"id":"0194c1d0-0000-7000-8000-%012d","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"message","id":"a%07d","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hello %d"}}`+"\n", i, i)
		testutil.MustWriteFile(t, root, fmt.Sprintf("s%03d.jsonl", i), []byte(b.String()))
	}
	for _, stopAfter := range []int{1, 7} {
		a := mustOpen(t, filepath.Join(dir, fmt.Sprintf("index%d.db", stopAfter)))
		ctx, cancel := context.WithCancel(context.Background())
		sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}, Progress: func(p ingest.Progress) {
			if p.Files == stopAfter {
				cancel() // Ctrl-C once this many files are read
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stop after %d: Index error = %v, want context.Canceled", stopAfter, err)
		}
		n, err := a.DB().CountSessions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n != stopAfter || sum.Indexed != n {
			t.Errorf("stop after %d files: the index holds %d sessions and the summary says %d indexed, want %d and %d",
				stopAfter, n, sum.Indexed, stopAfter, stopAfter)
		}
	}
}
