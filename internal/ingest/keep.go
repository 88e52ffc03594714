package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/kept"
)

// Keep turns the kept store (SPEC §11) on or off for this Indexer's
// writes: on, every session writer hands the committed bytes it stored to
// the store in kept.Dir of the index file (keeper). In PostgreSQL it does
// nothing: the index keeps the bytes itself (SPEC §10).
func (ix *Indexer) Keep(on bool) {
	ix.keep = on
	ix.keepOn(ix.db)
}

// KeptStore is the kept store beside the index file; nil in PostgreSQL.
func (ix *Indexer) KeptStore() *kept.Store {
	if ix.db.IsServer() {
		return nil
	}
	return kept.Open(kept.Dir(ix.db.File()))
}

// keepOn sets db's keeper as ix.keep says: db is ix.db, or a build
// index written in its place (a cold build, a rebuild).
func (ix *Indexer) keepOn(db *index.DB) {
	if ix.keep && !db.IsServer() {
		db.SetKeeper(&keeper{st: kept.Open(kept.Dir(ix.db.File())), note: ix.note})
	} else {
		db.SetKeeper(nil)
	}
}

// keepFault, when set (by tests), is called before each block is
// appended to a kept copy, with the session file's path and the block's
// offset; an error it returns is taken as that write failing.
var keepFault func(path string, at int64) error

// keeper appends each session's committed bytes to the kept store as its
// writer commits them, before the index's transaction does: kept bytes
// the index does not know (a run killed, a batch rolled back) are found on
// the next write of that file and read again, never kept twice.
type keeper struct {
	st   *kept.Store
	note func(string) // says that a damaged kept copy was set aside; may be nil
}

// Keep keeps [from, s.CommittedLen) of s's file (index.Keeper). What the
// store holds already decides what is appended:
//
//   - an append (from > 0): the kept copy is cut back to from (to the frame
//     boundary at or before it: bytes past from were kept by a run the
//     index does not know of), the bytes between that boundary and from
//     read again from the file, and the new bytes appended;
//   - a whole read (from == 0) over a kept copy that the new bytes begin
//     with: only what follows it is appended (an index made again);
//   - a whole read over a kept copy they do not begin with (the file was
//     rewritten, truncated or replaced): the kept copy becomes the
//     session's earlier version (kept.Writer.Retire) and the new bytes are
//     kept as the current one.
//
// Errors: the file system's (a full disk is ENOSPC in the chain:
// index.IsDiskFull), an io_error naming the file when it cannot be read
// again.
func (k *keeper) Keep(ctx context.Context, s *index.Session, from int64, pieces func(func(int64, []byte) error) error) (err error) {
	if s.CommittedLen <= 0 && from == 0 {
		return nil
	}
	w, err := k.st.Writer(s.Source, s.Path)
	if errors.Is(err, kept.ErrCorrupt) {
		w, err = k.afresh(s, err)
	}
	if err != nil {
		return err
	}
	// A keep that fails leaves what the index knows of: the copy as it
	// was (an append: up to the frame boundary at or before from), or none
	// when this keep made it. A failed run's bytes never stay behind, on a
	// full disk least of all.
	before := w.Len()
	if from > 0 {
		before = min(before, from)
	}
	moved := false // the old copy became an earlier version: left so
	retire := func() error {
		moved = true
		return w.Retire() // indexed at the run's end (adoptLeftVersions)
	}
	defer func() {
		switch {
		case w == nil: // a damaged copy set aside, and no new one made
		case err == nil || moved:
			if err == nil && s.FileMtimeNs > 0 {
				w.SetModTime(time.Unix(0, s.FileMtimeNs)) // best effort: only a gone messages log's time needs it
			}
			w.Close()
		case before == 0:
			w.Drop()
		default:
			w.Cut(before)
			w.Close()
		}
	}()
	if keepFault != nil {
		inner := pieces
		pieces = func(sink func(int64, []byte) error) error {
			return inner(func(at int64, p []byte) error {
				if err := keepFault(s.Path, at); err != nil {
					return err
				}
				return sink(at, p)
			})
		}
	}
	if from > 0 {
		at, err := w.Cut(from)
		if err != nil {
			return err
		}
		if at < from {
			if err := keepFromFile(w, s.Path, at, from, true); err != nil {
				return err
			}
		}
		return pieces(func(_ int64, p []byte) error { return w.Append(p) })
	}
	had := w.Len() // bytes kept before; compared with the new ones up to there
	same := true
	var old []byte
	err = pieces(func(at int64, p []byte) error {
		if same && at < had {
			n := min(int64(len(p)), had-at)
			old = append(old[:0], make([]byte, n)...)
			if _, err := w.ReadAt(old, at); errors.Is(err, kept.ErrCorrupt) {
				// A damaged kept copy: set aside, and the file kept afresh.
				w.Close()
				if w, err = k.afresh(s, err); err != nil {
					return err
				}
				had, same, before = 0, false, 0
				if err := keepFromFile(w, s.Path, 0, at, false); err != nil {
					return err
				}
				return w.Append(p)
			} else if err != nil && err != io.EOF {
				return err
			}
			if bytes.Equal(old, p[:n]) {
				return w.Append(p[n:])
			}
			same = false
			if err := retire(); err != nil {
				return err
			}
			if at > 0 {
				if err := keepFromFile(w, s.Path, 0, at, false); err != nil {
					return err
				}
			}
		}
		if same && at+int64(len(p)) <= had {
			return nil
		}
		return w.Append(p)
	})
	if err == nil && same && had > s.CommittedLen {
		// The file holds less than was kept (truncated): what was kept is
		// the earlier version.
		if err = retire(); err == nil {
			err = keepFromFile(w, s.Path, 0, s.CommittedLen, true)
		}
	}
	return err
}

// afresh sets the damaged kept copy of s's file aside (kept.SetAside:
// nothing is deleted), says so (note), and opens a new one; damage is the
// error that found it (naming the kept file and the frame's byte). The
// session file is there, being read: its committed bytes are kept again.
func (k *keeper) afresh(s *index.Session, damage error) (*kept.Writer, error) {
	to, err := k.st.SetAside(s.Source, s.Path)
	if err != nil {
		return nil, fmt.Errorf("set aside the damaged kept copy of %s (%v): %w", s.Path, damage, err)
	}
	if k.note != nil {
		k.note(fmt.Sprintf("the kept copy of %s is damaged (%v): set aside as %s, and the file's committed bytes kept afresh", s.Path, damage, to))
	}
	return k.st.Writer(s.Source, s.Path)
}

// keepFromFile appends [from, to) of the session file path to w, in
// blocks of 256 KiB. With lineEnd, to is a committed length and must be a
// line end; without, it is where the next block of the same bytes starts
// (kept frames may end inside a line).
func keepFromFile(w *kept.Writer, path string, from, to int64, lineEnd bool) error {
	f, err := os.Open(path)
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot read the session file again to keep its committed bytes: "+errs.PathReason(err)).In(path)
	}
	defer f.Close()
	b := make([]byte, min(to-from, 256<<10))
	for at := from; at < to; {
		p := b[:min(int64(len(b)), to-at)]
		if _, err := f.ReadAt(p, at); err != nil {
			return errs.Wrap(errs.CodeIO, err, "cannot read the session file again to keep its committed bytes: "+errs.PathReason(err)).In(path)
		}
		at += int64(len(p))
		if lineEnd && at == to && p[len(p)-1] != '\n' {
			return errs.New(errs.CodeIO, fmt.Sprintf("the session file changed while grove read it: byte %d is no line end", to-1)).In(path).WithHint("run `grove index` again")
		}
		if err := w.Append(p); err != nil {
			return err
		}
	}
	return nil
}

// goneKept reports whether the sessions of the gone file path stay, marked
// gone (SPEC §11): in PostgreSQL when the index holds its committed bytes
// (every file read, a compressed one not); in SQLite when the kept store
// holds all the committed bytes the index knows of it.
func (ix *Indexer) goneKept(ctx context.Context, path string) (bool, error) {
	s, err := ix.db.SessionByPath(ctx, path)
	if err != nil || s == nil {
		return false, err
	}
	if s.Gone {
		return true, nil
	}
	if IsCompressed(path) {
		return false, nil
	}
	if ix.db.IsServer() {
		return true, nil
	}
	n, err := ix.KeptStore().Len(s.Source, s.Path)
	if err != nil {
		return false, err
	}
	return n >= s.CommittedLen && s.CommittedLen > 0, nil
}

// adoptKept indexes, from the kept store, the sessions it holds whose
// files are gone and which the index does not hold (SPEC §11: the index is
// made again from the session files and the kept store together), each
// marked gone. It runs after a rebuild and after the first index of an
// empty index; nothing is read when there is no kept store. With keeping
// off (Keep, --no-keep) nothing new is kept, but what was kept before is
// still read: a rebuild never loses a gone session. A kept copy
// that cannot be read is an error naming it: the run's other work stays.
func (ix *Indexer) adoptKept(ctx context.Context, sum *IndexSummary) error {
	st := ix.KeptStore()
	if st == nil {
		return nil
	}
	if _, err := os.Stat(st.Dir()); errors.Is(err, fs.ErrNotExist) {
		return nil // nothing was ever kept
	}
	list, err := st.List()
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot read the kept store: "+err.Error()).In(st.Dir())
	}
	for _, e := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.Len == 0 {
			continue
		}
		if err := ix.adoptVersions(ctx, st, e.Source, e.Path); err != nil {
			return err
		}
		if _, err := os.Lstat(e.Path); err == nil {
			continue // not gone: its file is indexed when its root is
		}
		if s, err := ix.db.SessionByPath(ctx, e.Path); err != nil {
			return err
		} else if s != nil {
			continue
		}
		if err := ix.adoptOne(ctx, st, e); err != nil {
			return err
		}
		sum.Gone++
	}
	return nil
}

// adoptOne indexes the kept copy e as a gone session (adoptKept).
func (ix *Indexer) adoptOne(ctx context.Context, st *kept.Store, e kept.Entry) error {
	f, err := st.OpenFile(e.Source, e.Path)
	if err != nil {
		je := errs.Wrap(errs.CodeIO, err, "cannot read the kept copy of a session file that is gone: "+err.Error()).In(e.Path)
		if errors.Is(err, kept.ErrCorrupt) {
			je = je.WithHint(kept.DamagedHint)
		}
		return je
	}
	defer f.Close()
	b, err := ix.db.BeginBatch(ctx)
	if err != nil {
		return err
	}
	defer b.Rollback()
	b.KeepStored() // its bytes are the kept ones: nothing to keep again
	var res FileResult
	cf := &countingFile{f: f, path: e.Path}
	stat := FileStat{Size: f.Size(), Regular: true}
	if t := f.ModTime(); !t.IsZero() {
		stat.MtimeNs = t.UnixNano() // the session file's, as last kept (Writer.SetModTime)
	}
	if err := readWholeInto(ctx, func(s *index.Session) (sink, error) { return b.Replace(ctx, s) }, false, cf, f.Size(), stat, &res); err != nil {
		if je := (*errs.Error)(nil); errors.Is(err, kept.ErrCorrupt) && errors.As(err, &je) {
			je.Hint = kept.DamagedHint
		}
		return err
	}
	if err := b.MarkGone(ctx, e.Path); err != nil {
		return err
	}
	return b.Commit()
}

// adoptKeptLocked is adoptKept holding the index's lock (Lock).
func (ix *Indexer) adoptKeptLocked(ctx context.Context, busy func(string), sum *IndexSummary) error {
	unlock, err := ix.Lock(ctx, busy)
	if err != nil {
		return err
	}
	defer unlock()
	return ix.adoptKept(ctx, sum)
}

// keepInto has fresh, a build index written in ix's place (a cold build,
// a rebuild), keep as ix keeps, into the kept store beside ix's index.
func (ix *Indexer) keepInto(fresh *Indexer) {
	fresh.keep = ix.keep
	ix.keepOn(fresh.db)
}
