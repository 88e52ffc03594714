package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Many groves opening one index that does not exist yet, at once (two
// `grove index` started together, a watch and a search): every one opens
// the same grove index, none refuses it as not_index for having seen it
// half made, and no file of the making is left beside it.
func TestOpen_ManyAtOnceOnANewIndex(t *testing.T) {
	ctx := context.Background()
	for round := range 20 {
		dir := t.TempDir()
		path := filepath.Join(dir, fmt.Sprintf("index-%d.db", round))
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				d, err := Open(ctx, path)
				if err == nil {
					_, err = d.CountSessions(ctx)
					d.Close()
				}
				errs[i] = err
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: open %d of %d: %v", round, i+1, n, err)
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if name := e.Name(); name != filepath.Base(path) && name != filepath.Base(path)+"-wal" && name != filepath.Base(path)+"-shm" {
				t.Fatalf("round %d: %s left beside the index", round, name)
			}
		}
		if !IsIndexFile(path) {
			t.Fatalf("round %d: %s is not a grove index", round, path)
		}
	}
}
