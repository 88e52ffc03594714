package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/ingest"
)

// Two groves on one index (docs/indexing.md "Two groves"): the second waits for the
// lock, saying who holds it, or with no Busy callback fails with
// index_busy.
func TestIndex_SecondGroveWaitsForTheLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	first := mustOpen(t, db)
	second := mustOpen(t, db)
	unlock, err := first.Lock(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	holder, _ := os.ReadFile(ingest.LockPath(db))
	if !strings.Contains(string(holder), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("lock file says %q, want this process's pid", holder)
	}
	_, err = second.Index(ctx, ingest.IndexOptions{Files: []string{filepath.Join(dir, "none.jsonl")}})
	if errs.CodeOf(err) != errs.CodeIndexBusy || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("Index while locked, not waiting = %v, want index_busy naming the holder", err)
	}
	told := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := second.Index(ctx, ingest.IndexOptions{Roots: []string{dir}, Busy: func(h string) { told <- h }})
		done <- err
	}()
	select {
	case h := <-told:
		if !strings.Contains(h, "pid") {
			t.Fatalf("Busy got %q, want the holder's line", h)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting Index never called Busy")
	}
	select {
	case err := <-done:
		t.Fatalf("Index finished (%v) while the lock was held", err)
	case <-time.After(300 * time.Millisecond):
	}
	unlock()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Index after the lock was released: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Index did not go on after the lock was released")
	}
	// A waiting grove stops with its context.
	unlock, _ = first.Lock(ctx, nil)
	defer unlock()
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := second.Index(cctx, ingest.IndexOptions{Roots: []string{dir}, Busy: func(string) {}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Index waiting with a context that ends = %v, want its deadline", err)
	}
}
