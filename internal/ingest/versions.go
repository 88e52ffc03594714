package ingest

import (
	"context"
	"strconv"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/kept"
)

// Earlier versions (SPEC §11): when a session file's committed bytes no
// longer begin with what was kept (rewritten, truncated, replaced), the
// keeper makes the kept copy an earlier version (kept.Writer.Retire). Each
// earlier version n of the file at path is indexed as a session of its own
// at path kept.VersionPath(path, n) ("…@vN"), its session id followed by
// "@vN", marked gone: its bodies are read from the version's kept copy
// (kept.Store.OpenFile), and search finds its text. The current version
// keeps the file's path and the session's id.

// adoptLeftVersions indexes every earlier version the kept store holds
// of a file the index holds (same source and path) and that the index
// does not hold itself; run under the index's lock at the end of a
// refresh. The keeper makes a version before the index commits the
// file's rows: a run stopped or killed between the two leaves a version
// that the next run, finding the file's bytes already kept, would not
// make again; it is found here. Versions of files the index does not hold
// are left to adoptKept (a rebuild, an index made again), which indexes
// them with their gone file. Nothing is read when there is no kept store.
func (ix *Indexer) adoptLeftVersions(ctx context.Context) error {
	st := ix.KeptStore()
	if st == nil {
		return nil
	}
	vs, err := st.EarlierVersions()
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot read the kept store's earlier versions: "+err.Error()).In(st.Dir())
	}
	for _, v := range vs {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := ix.db.SessionByPath(ctx, v.Path)
		if err != nil {
			return err
		}
		if s == nil || s.Source != v.Source {
			continue
		}
		if h, err := ix.db.SessionByPath(ctx, kept.VersionPath(v.Path, v.N)); err != nil {
			return err
		} else if h != nil {
			continue
		}
		if err := ix.adoptVersion(ctx, st, v.Source, v.Path, v.N); err != nil {
			return err
		}
	}
	return nil
}

// adoptVersions indexes every earlier version of the file at path that
// the kept store st holds and the index does not (adoptKept, for an
// index made again). A version that cannot be read is an
// io_error naming it.
func (ix *Indexer) adoptVersions(ctx context.Context, st *kept.Store, source, path string) error {
	for _, n := range st.VersionNumbers(source, path) {
		vpath := kept.VersionPath(path, n)
		if s, err := ix.db.SessionByPath(ctx, vpath); err != nil {
			return err
		} else if s != nil {
			continue
		}
		if err := ix.adoptVersion(ctx, st, source, path, n); err != nil {
			return err
		}
	}
	return nil
}

// adoptVersion indexes earlier version n of the file at path: read as
// the file itself is (its dialect and session id taken from its own path
// and bytes), stored at its VersionPath and marked earlier.
func (ix *Indexer) adoptVersion(ctx context.Context, st *kept.Store, source, path string, n int) error {
	vpath := kept.VersionPath(path, n)
	f, err := st.OpenVersion(source, path, n)
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot read an earlier version of a session file from the kept store: "+err.Error()).In(vpath)
	}
	defer f.Close()
	if f.Size() == 0 {
		return nil
	}
	b, err := ix.db.BeginBatch(ctx)
	if err != nil {
		return err
	}
	defer b.Rollback()
	b.KeepStored() // its bytes are the kept ones: nothing to keep again
	var res FileResult
	cf := &countingFile{f: f, path: path}
	begin := func(s *index.Session) (sink, error) {
		s.Path = vpath
		return b.Replace(ctx, s)
	}
	stat := FileStat{Size: f.Size(), Regular: true}
	if t := f.ModTime(); !t.IsZero() {
		stat.MtimeNs = t.UnixNano() // the file's time when this version was its bytes (Writer.SetModTime)
	}
	if err := readWholeInto(ctx, begin, false, cf, f.Size(), stat, &res); err != nil {
		return err
	}
	if err := b.MarkEarlier(ctx, vpath, "@v"+strconv.Itoa(n)); err != nil {
		return err
	}
	return b.Commit()
}
