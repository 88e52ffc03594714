package index

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/grove-sessions/grove/errs"
)

// A Keeper keeps the committed bytes of each session file a writer stores
// (SPEC §11: the kept store beside a SQLite index; PostgreSQL keeps them
// in file_bytes instead). Keep is called as a session writer commits,
// before any statement of the commit, with the session as read, the
// offset from which this writer read the file (0: read whole; the old
// CommittedLen: an append) and the bytes [from, s.CommittedLen) in blocks
// (streamBytes: a block may end inside a line, the last ends at a line
// end), read again from the file and checked against the CRC-32 of every
// entry line; a block must not be kept after the sink returns. An error
// from Keep fails the commit: the session's rows are not stored.
type Keeper interface {
	Keep(ctx context.Context, s *Session, from int64, pieces func(sink func(at int64, piece []byte) error) error) error
}

// SetKeeper has every session writer of d hand its committed bytes to k
// (nil: to none). Ignored in PostgreSQL, which stores them itself.
func (d *DB) SetKeeper(k Keeper) {
	if !d.keepBytes {
		d.keeper = k
	}
}

// Keeper is the keeper SetKeeper set, nil when none.
func (d *DB) Keeper() Keeper { return d.keeper }

// GoneKey is the stat key of a session whose file is gone (MarkGone):
// FileStates leaves it out, so the next refresh looks for no file, and a
// file that comes back at its path is read whole.
const GoneKey = -1

// MarkGone marks the sessions of the file at path gone (SPEC §11): their
// rows stay, their bodies read from the kept store or, in PostgreSQL, from
// the committed bytes the index holds.
func (b *Batch) MarkGone(ctx context.Context, path string) error {
	mine, args := b.d.mine("")
	if _, err := b.tx.ExecContext(ctx, "UPDATE sessions SET gone = ?, stat_key = ? WHERE path = ?"+mine, append([]any{true, GoneKey, path}, args...)...); err != nil {
		return fmt.Errorf("index %s: mark gone: %w", path, err)
	}
	return nil
}

// keepBlock is the size of the blocks streamBytes reads.
const keepBlock = 256 << 10

// streamBytes reads the committed bytes this writer read, [bytesFrom,
// CommittedLen) of the session file, again from the file in blocks of
// keepBlock bytes (a block may end inside a line; the last ends at a line
// end), checks each entry line it added against its CRC-32 as the blocks
// pass, and hands each block to sink, which must not keep it. A file
// rewritten in between is an io_error naming the line; the blocks before
// it were handed on. Memory: one block, whatever the lines' length.
func (w *SessionWriter) streamBytes(sink func(at int64, block []byte) error) error {
	s := w.s
	from, to := w.bytesFrom, s.CommittedLen
	if to <= from {
		return nil
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot read the session file again to keep its committed bytes: "+pathErrMsg(err)).In(s.Path)
	}
	defer f.Close()
	changed := func(line int, off int64) error {
		return errs.New(errs.CodeIO, "the session file changed while grove read it; nothing of it was kept").In(s.Path).At(line, off).WithHint("run `grove index` again")
	}
	block := make([]byte, min(int64(keepBlock), to-from))
	var crc uint32 // of the part of line k read so far
	k := 0
	for at := from; at < to; {
		n, err := f.ReadAt(block[:min(int64(len(block)), to-at)], at)
		if n == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				return changed(s.Lines, at) // the file is shorter now
			}
			return errs.Wrap(errs.CodeIO, err, "cannot read the session file again to keep its committed bytes: "+pathErrMsg(err)).In(s.Path)
		}
		p, end := block[:n], at+int64(n)
		for ; k < len(w.lines) && w.lines[k].off < end; k++ {
			l := w.lines[k]
			lo, hi := max(l.off, at), min(l.off+int64(l.length), end)
			crc = crc32.Update(crc, crc32.IEEETable, p[lo-at:hi-at])
			if hi < l.off+int64(l.length) {
				break // the line goes on in the next block
			}
			if crc != l.crc {
				return changed(l.line, l.off)
			}
			crc = 0
		}
		if end == to && p[n-1] != '\n' { // the committed bytes must end at a line end
			return changed(s.Lines, end)
		}
		if err := sink(at, p); err != nil {
			return err
		}
		at = end
	}
	return nil
}

// MarkEarlier marks the session stored at path as an earlier version of
// a session file (SPEC §11): gone, as MarkGone does, and its session id
// followed by mark (the version's "@vN"), so that the session's own id
// still names the current version alone.
func (b *Batch) MarkEarlier(ctx context.Context, path, mark string) error {
	mine, args := b.d.mine("")
	if _, err := b.tx.ExecContext(ctx, "UPDATE sessions SET gone = ?, stat_key = ?, session_id = session_id || ? WHERE path = ?"+mine, append([]any{true, GoneKey, mark, path}, args...)...); err != nil {
		return fmt.Errorf("index %s: mark earlier version: %w", path, err)
	}
	return nil
}

// GoneRow is a gone session's path and id (GoneSessions).
type GoneRow struct {
	Path      string `db:"path"`
	SessionID string `db:"session_id"`
}

// GoneSessions is the path and id of every session of the index that is
// gone (MarkGone, MarkEarlier), in no order.
func (d *DB) GoneSessions(ctx context.Context) ([]GoneRow, error) {
	var out []GoneRow
	if err := d.db.SelectContext(ctx, &out, "SELECT path, session_id FROM sessions WHERE gone = ?", true); err != nil {
		return nil, fmt.Errorf("list gone sessions: %w", err)
	}
	return out, nil
}
