package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/flock"
)

// lockPoll is how often a grove waiting for the index's lock tries again.
const lockPoll = 100 * time.Millisecond

// Lock takes the index's writer lock, an exclusive flock.TryLock (flock(2)
// on Unix) on LockPath(index file), so that two groves never write one index at once
// (docs/indexing.md "Two groves": `grove index`, `grove rebuild` and each pass of
// `grove watch` hold it; readers never take it, SQLite's WAL gives them a
// consistent view). The lock file then says who holds it ("pid N: grove
// index since T"). When another grove holds it and busy is nil, Lock fails
// at once with index_busy; otherwise it calls busy once with the holder's
// line and waits until the lock is free or ctx ends. The lock goes with the
// process, so a grove killed by SIGKILL never leaves it held. unlock
// releases it.
func (ix *Indexer) Lock(ctx context.Context, busy func(holder string)) (unlock func(), err error) {
	if ix.db.IsServer() {
		return ix.db.LockSource(ctx, busy)
	}
	path := LockPath(ix.db.File())
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, index.FileMode)
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "cannot open the index's lock file: "+errs.PathReason(err)).In(path)
	}
	told := false
	for {
		err := flock.TryLock(f)
		if err == nil {
			break
		}
		if !errors.Is(err, flock.ErrLocked) {
			f.Close()
			return nil, errs.Wrap(errs.CodeIO, err, "cannot lock the index: "+err.Error()).In(path)
		}
		holder := readHolder(path)
		if busy == nil {
			f.Close()
			return nil, errs.New(errs.CodeIndexBusy, "another grove is writing this index ("+holder+")").In(ix.db.File()).WithHint("wait for it to finish; searches and other reading commands work meanwhile")
		}
		if !told {
			busy(holder)
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
	cmd := "grove"
	if len(os.Args) > 1 {
		cmd = "grove " + CommandName(os.Args[1:])
	}
	// Best effort: who holds the lock is for messages only.
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d: %s since %s\n", os.Getpid(), cmd, time.Now().Format(time.TimeOnly))
	}
	return func() {
		f.Truncate(0)
		flock.Unlock(f)
		f.Close()
	}, nil
}

// readHolder is the first line of the lock file, or a stand-in.
func readHolder(path string) string {
	b, err := os.ReadFile(path)
	if line, _, _ := strings.Cut(string(b), "\n"); err == nil && line != "" {
		return line
	}
	return "its process id is not known yet"
}

// CommandName is the grove command named by args (os.Args without the
// program name): the first argument that is not a global flag or its value
// ("" when there is none). It names the command in the lock file and in
// the hints of disk_full errors.
func CommandName(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--db" || a == "-db":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}
