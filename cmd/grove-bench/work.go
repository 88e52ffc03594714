package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grove-sessions/grove/internal/diskfree"
	"github.com/grove-sessions/grove/internal/flock"
)

// markerName marks a directory as grove-bench's work directory; the
// harness holds an exclusive lock (flock.TryLock) on it while it runs.
const markerName = ".grove-bench"

// claimWork makes dir the work directory of this run: it must be new,
// empty, or marked by an earlier run (the harness deletes and rewrites
// files there, so it never takes over a directory someone else uses), and
// no other grove-bench may be using it. The returned function releases it.
func claimWork(dir string) (release func(), err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(dir, markerName)); err != nil {
			return nil, fmt.Errorf("refusing to use %s as the work directory: it is not empty and was not made by grove-bench (no %s); pass a new or empty --work", dir, markerName)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, markerName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock.TryLock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("another grove-bench is using %s; wait for it or pass another --work", dir)
	}
	return func() { f.Close() }, nil
}

// checkSpace refuses a run whose corpus, indexes and baseline would not
// fit: about 2.5 times the corpus size must be free in dir (1.5 times when
// the corpus is reused). flag names the option that sets the size.
func checkSpace(dir string, corpus int64, reuse bool, flag string) error {
	free, ok := diskfree.Available(dir)
	if !ok {
		return nil // cannot tell: go ahead
	}
	need := corpus * 3 / 2 // the grove index and the baseline's
	if !reuse {
		need += corpus
	}
	if free < need {
		return fmt.Errorf("%s has %s free; this run needs about %s (corpus, grove's index and the baseline's); free some space or pass a smaller %s", dir, mb(free), mb(need), flag)
	}
	return nil
}
