package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// markerName marks a directory as grove-bench's work directory; the
// harness holds an exclusive flock on it while it runs.
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
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another grove-bench is using %s; wait for it or pass another --work", dir)
	}
	return func() { f.Close() }, nil
}

// checkSpace refuses a run whose corpus, indexes and baseline would not
// fit: about 2.5 times the corpus size must be free in dir (1.5 times when
// the corpus is reused). flag names the option that sets the size.
func checkSpace(dir string, corpus int64, reuse bool, flag string) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return nil // cannot tell: go ahead
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	need := corpus * 3 / 2 // the grove index and the baseline's
	if !reuse {
		need += corpus
	}
	if free < need {
		return fmt.Errorf("%s has %s free; this run needs about %s (corpus, grove's index and the baseline's); free some space or pass a smaller %s", dir, mb(free), mb(need), flag)
	}
	return nil
}
