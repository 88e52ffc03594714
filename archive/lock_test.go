package archive_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/jsonl"
)

// Two groves on one index (issue 5 item 5): the second waits for the lock,
// saying who holds it, or with no Busy callback fails with index_busy.
func TestIndex_SecondGroveWaitsForTheLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	first := mustOpenArchive(t, db)
	second := mustOpenArchive(t, db)
	unlock, err := first.Lock(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	holder, _ := os.ReadFile(archive.LockPath(db))
	if !strings.Contains(string(holder), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("lock file says %q, want this process's pid", holder)
	}
	_, err = second.Index(ctx, archive.IndexOptions{Files: []string{filepath.Join(dir, "none.jsonl")}})
	if jsonl.CodeOf(err) != jsonl.CodeIndexBusy || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("Index while locked, not waiting = %v, want index_busy naming the holder", err)
	}
	told := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := second.Index(ctx, archive.IndexOptions{Roots: []string{dir}, Busy: func(h string) { told <- h }})
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
	if _, err := second.Index(cctx, archive.IndexOptions{Roots: []string{dir}, Busy: func(string) {}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Index waiting with a context that ends = %v, want its deadline", err)
	}
}

// Readers during indexing see each session wholly before or wholly after
// its update (issue 5 item 5): a session grows by batches of entries in a
// chain while another connection reads it; every read's entry count, active
// leaf and path by CTE must agree with one another.
func TestIndex_ReadersSeeWholeSessions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, []byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`+"\n"), 0o644)
	db := filepath.Join(dir, "index.db")
	w := mustOpenArchive(t, db)
	r := mustOpenArchive(t, db)
	n := 0
	grow := func(k int) {
		var b strings.Builder
		for i := 0; i < k; i++ {
			parent := "null"
			if n > 0 {
				parent = fmt.Sprintf(`"e%d"`, n-1)
			}
			fmt.Fprintf(&b, `{"type":"message","id":"e%d","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"entry %d"}}`+"\n", n, parent, n)
			n++
		}
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(b.String())
		f.Close()
	}
	grow(1)
	if _, err := w.Index(ctx, archive.IndexOptions{Files: []string{path}}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var readErr error
	var reads int
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			reads++
			sess, err := r.DB().SessionByPath(ctx, path)
			if err != nil || sess == nil {
				readErr = fmt.Errorf("read session: %v", err)
				return
			}
			es, err := r.DB().Path(ctx, sess.SID, *sess.ActiveLeaf)
			if err != nil {
				readErr = fmt.Errorf("path: %v", err)
				return
			}
			if len(es) != sess.Entries || *sess.ActiveLeaf != fmt.Sprintf("e%d", sess.Entries-1) {
				readErr = fmt.Errorf("a half-updated session: %d entries, active leaf %s, path of %d", sess.Entries, *sess.ActiveLeaf, len(es))
				return
			}
		}
	}()
	for round := 0; round < 40 && readErr == nil; round++ {
		grow(50)
		if _, err := w.Index(ctx, archive.IndexOptions{Files: []string{path}}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if readErr != nil {
		t.Fatal(readErr)
	}
	if reads < 10 {
		t.Fatalf("only %d reads ran during indexing; the test saw too little", reads)
	}
}
