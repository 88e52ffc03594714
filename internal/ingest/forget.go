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

// Forgetter is a store besides the index that holds a session file's
// bytes: the kept store (SPEC §11). ForgetFile drops, for good, all it
// holds of the file at path read by source (the machine, SPEC §10); a
// path it holds nothing of is no error. The store must also leave out of
// a rebuild every file the index lists as forgotten
// (index.DB.ForgottenFiles), as a refresh does (see Forget).
type Forgetter interface {
	ForgetFile(ctx context.Context, source, path string) error
}

// keptStore is the kept store beside a SQLite index (package kept) as a
// Forgetter: every version of the file's kept copy is removed.
type keptStore struct{ st *kept.Store }

func (k keptStore) ForgetFile(_ context.Context, source, path string) error {
	return k.st.Remove(source, path)
}

// AlsoForget makes Forget drop each forgotten file from f too, after the
// index has committed: a store that fails then is Forget's error, and the
// index already leaves the file out.
func (ix *Indexer) AlsoForget(f Forgetter) { ix.forgetters = append(ix.forgetters, f) }

// Forget is `grove forget` (SPEC §11): under the index's lock, the
// sessions stored for paths (absolute, as the index holds them) leave the
// index in one transaction — their entries, search text, diagnostics,
// labels and, in PostgreSQL, committed bytes — and each file's identity is
// recorded (FileIdentity; from the index's row when the file is gone), so
// that a refresh (Index, Watch, Rebuild) leaves it out while its
// committed bytes are those (forgottenUnchanged). Then the kept store
// beside a SQLite index (kept.Dir) removes its copies of the file, and
// each Forgetter given to AlsoForget drops it. Sessions of other files are untouched, whatever they
// name as their parent session (a fork, a sub-agent).
//
// Errors: index_busy without busy; io_error for a file that is there but
// cannot be read (nothing is forgotten then); unknown_session for a path
// the index holds no session of for this grove's source; the index's;
// then a Forgetter's, wrapped with the path.
func (ix *Indexer) Forget(ctx context.Context, paths []string, busy func(holder string)) error {
	unlock, err := ix.Lock(ctx, busy)
	if err != nil {
		return err
	}
	defer unlock()
	now := time.Now().UnixMilli()
	var recs []index.Forgotten
	for _, p := range paths {
		s, err := ix.db.SessionByPath(ctx, p)
		if err != nil {
			return err
		}
		if s == nil {
			return errs.New(errs.CodeUnknownSession, "no session of this source is stored for this file").In(p).
				WithHint("grove sessions lists what the index holds; in a team's index, forget a session from its own machine (--source)")
		}
		f, err := FileIdentity(p, now)
		if errors.Is(err, fs.ErrNotExist) {
			// Gone: its bytes as the index last read them.
			f = index.Forgotten{CommittedLen: s.CommittedLen, HeadCRC: s.HeadCRC, TailCRC: s.TailCRC}
		} else if err != nil {
			return errs.Wrap(errs.CodeIO, err, "cannot read session file: "+errs.PathReason(err)).In(p)
		}
		f.Source, f.Path, f.SessionID, f.Dialect, f.Workspace, f.ForgottenMs = s.Source, p, s.SessionID, s.Dialect, s.Workspace, now
		recs = append(recs, f)
	}
	b, err := ix.db.BeginBatch(ctx)
	if err != nil {
		return err
	}
	defer b.Rollback()
	for _, f := range recs {
		if err := b.Forget(ctx, f); err != nil {
			return err
		}
	}
	if err := b.Commit(); err != nil {
		return ix.db.Classify(err)
	}
	forgetters := ix.forgetters
	if !ix.db.IsServer() { // PostgreSQL keeps the bytes in the index (SPEC §11)
		forgetters = append([]Forgetter{keptStore{kept.Open(kept.Dir(ix.db.File()))}}, forgetters...)
	}
	for _, f := range recs {
		for _, k := range forgetters {
			if err := k.ForgetFile(ctx, f.Source, f.Path); err != nil {
				return fmt.Errorf("forget %s: %w", f.Path, err)
			}
		}
	}
	return nil
}

// FileIdentity is what Forget records of the file at path at nowMs: its
// StatKey (0 when its mtime is within index.RacyWindowMs of nowMs, so
// that a change in the same clock tick is not missed), the length of its
// committed lines (SPEC §2: up to and with the last line feed) and the
// fingerprints of their first and last 4 KiB (as a refresh takes them,
// SPEC §6). It reads those windows and, backwards from the end, up to
// the last line feed. Errors are the file system's.
func FileIdentity(path string, nowMs int64) (index.Forgotten, error) {
	f, err := os.Open(path)
	if err != nil {
		return index.Forgotten{}, err
	}
	defer f.Close()
	st, err := Stat(path)
	if err != nil {
		return index.Forgotten{}, err
	}
	committed, err := committedLen(f, st.Size)
	if err != nil {
		return index.Forgotten{}, err
	}
	head, tail, _, err := fingerprints(f, committed)
	if err != nil {
		return index.Forgotten{}, err
	}
	out := index.Forgotten{CommittedLen: committed, HeadCRC: head, TailCRC: tail}
	if nowMs-st.MtimeNs/1e6 > index.RacyWindowMs {
		out.StatKey = index.StatKey(st.Size, st.MtimeNs, st.Dev, st.Ino)
	}
	return out, nil
}

// committedLen is the offset just past the last line feed among the first
// size bytes of r, 0 when there is none.
func committedLen(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		n, err := r.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// forgottenUnchanged reports whether the file at path, of stat st, still
// has the committed bytes f recorded: the same stat, or else the same
// committed length and fingerprints (a touch, a copy of the same bytes, a
// tail written and not yet ended keep it forgotten; a committed line
// added, removed or changed brings it back, SPEC §11). A file that cannot
// be read is taken as changed: the read that follows reports it.
func forgottenUnchanged(path string, st FileStat, f index.Forgotten) bool {
	if f.StatKey != 0 && f.StatKey == index.StatKey(st.Size, st.MtimeNs, st.Dev, st.Ino) {
		return true
	}
	now, err := FileIdentity(path, 0)
	return err == nil && now.CommittedLen == f.CommittedLen && now.HeadCRC == f.HeadCRC && now.TailCRC == f.TailCRC
}

// carryForgotten records in to, a new index built to replace from (the
// cold build, Rebuild), the files from forgot, so that the new index
// leaves them out too.
func carryForgotten(ctx context.Context, from, to *index.DB) error {
	fs, err := from.ForgottenFiles(ctx)
	if err != nil {
		return err
	}
	recs := make([]index.Forgotten, 0, len(fs))
	for _, f := range fs {
		recs = append(recs, f)
	}
	return to.AddForgotten(ctx, recs)
}
