package index

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/grove-sessions/grove/errs"
)

// A session file's committed bytes in the index (PostgreSQL, SPEC §10): a
// reader on a machine without the files reads message bodies from here,
// byte for byte what the file held. Only committed lines are stored (SPEC
// §2: bytes up to and including the last LF), in pieces of whole lines
// (BytesPiece), appended as the file grows; a file whose committed prefix
// changed is read whole again and its pieces stored again, never patched.

// BytesPiece is the size, in bytes, past which a piece of stored bytes
// ends at the next line end: a line longer than that is a piece alone.
var BytesPiece = 1 << 20

// lineSpan is an entry's line, to check the stored bytes against.
type lineSpan struct {
	off    int64
	length int
	crc    uint32
	line   int
}

// docNumbers returns the first of n doc numbers' counter values for the
// entries a writer adds. In SQLite the counter row is updated inside the
// writer's transaction; in PostgreSQL in a transaction of its own, so that
// writers of other sources do not wait on it until this one commits (a
// number given and then rolled back is never used: numbers only need to
// be distinct).
func (w *SessionWriter) docNumbers(ctx context.Context, n int) (int64, error) {
	var k int64
	const q = "UPDATE counters SET value = value + ? WHERE name = 'doc' RETURNING value - ?"
	if w.b.d.db.pg {
		err := w.b.d.db.GetContext(ctx, &k, q, n, n)
		return k, err
	}
	err := w.tx.GetContext(ctx, &k, q, n, n)
	return k, err
}

// storeBytes stores the committed bytes this writer read, [bytesFrom,
// CommittedLen) of the session file, read again from the file and checked
// line by line against the CRC-32 of each entry added: a file rewritten
// in between is an io_error naming the line, and nothing is stored.
func (w *SessionWriter) storeBytes(ctx context.Context) error {
	return w.readBytes(func(at int64, piece []byte) error {
		_, err := w.tx.ExecContext(ctx, "INSERT INTO file_bytes (source, path, offset, data) VALUES (?, ?, ?, ?)", w.s.Source, w.s.Path, at, piece)
		return err
	})
}

// readBytes reads the committed bytes this writer read, [bytesFrom,
// CommittedLen) of the session file, again from the file, checks them
// line by line against the CRC-32 of each entry added and hands them to
// sink in pieces of whole lines of about BytesPiece bytes, in order. A
// file rewritten in between is an io_error naming the line; the pieces
// before it were handed on.
func (w *SessionWriter) readBytes(sink func(at int64, piece []byte) error) error {
	s := w.s
	from, to := w.bytesFrom, s.CommittedLen
	if to <= from {
		return nil
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot read the session file again to store its committed bytes: "+pathErrMsg(err)).In(s.Path)
	}
	defer f.Close()
	// A file rewritten while it was read fails alone, as a file that
	// cannot be read does (io_error): the run goes on, and the next one
	// reads it again.
	changed := func(line int, off int64) error {
		return errs.New(errs.CodeIO, "the session file changed while grove read it; nothing of it was stored").In(s.Path).At(line, off).WithHint("run `grove index` again")
	}
	r := io.NewSectionReader(f, from, to-from)
	block := make([]byte, min(64<<10, BytesPiece))
	buf := make([]byte, 0, BytesPiece+len(block))
	at, k := from, 0 // at: offset of buf[0]; k: next line to check
	store := func(piece []byte) error {
		for ; k < len(w.lines) && w.lines[k].off < at+int64(len(piece)); k++ {
			l := w.lines[k]
			start := l.off - at
			if start < 0 || start+int64(l.length) > int64(len(piece)) || crc32.ChecksumIEEE(piece[start:start+int64(l.length)]) != l.crc {
				return changed(l.line, l.off)
			}
		}
		if err := sink(at, piece); err != nil {
			return err
		}
		at += int64(len(piece))
		return nil
	}
	for {
		n, err := r.Read(block)
		buf = append(buf, block[:n]...)
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			return errs.Wrap(errs.CodeIO, err, "cannot read the session file again to store its committed bytes: "+pathErrMsg(err)).In(s.Path)
		}
		if len(buf) >= BytesPiece || eof {
			cut := bytes.LastIndexByte(buf, '\n')
			if cut >= 0 {
				if err := store(buf[:cut+1]); err != nil {
					return err
				}
				buf = append(buf[:0], buf[cut+1:]...)
			}
		}
		if eof {
			break
		}
	}
	if len(buf) > 0 { // the committed bytes must end at a line end
		return changed(s.Lines, at)
	}
	return nil
}

// StoredFile is a session's committed bytes as the index holds them
// (PostgreSQL): an io.ReaderAt over the committed length that fetches the
// pieces it needs, keeping the last few.
type StoredFile struct {
	d            *DB
	source, path string
	size         int64

	mu     sync.Mutex
	pieces []storedPiece // most recently used last
}

type storedPiece struct {
	off  int64
	data []byte
}

// storedKeep is how many pieces a StoredFile keeps.
const storedKeep = 4

// OpenStored is the committed bytes of session s as the index holds them.
// It reads nothing until ReadAt. ok is false when the index keeps no
// bytes (SQLite: bodies are read from the files).
func (d *DB) OpenStored(s *Session) (f *StoredFile, ok bool) {
	if !d.keepBytes {
		return nil, false
	}
	size := s.CommittedLen
	if size <= 0 {
		size = -1 // not known: the pieces say where the bytes end
	}
	return &StoredFile{d: d, source: s.Source, path: s.Path, size: size}, true
}

// ReadAt reads len(p) bytes at off, as os.File.ReadAt does: io.EOF when
// the committed bytes end first. A piece missing from the index is an
// error naming the file and offset.
func (f *StoredFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if f.size >= 0 && at >= f.size {
			return n, io.EOF
		}
		pc, err := f.piece(at)
		if err != nil {
			return n, err
		}
		n += copy(p[n:], pc.data[at-pc.off:])
	}
	return n, nil
}

// Close lets the kept pieces go.
func (f *StoredFile) Close() error {
	f.mu.Lock()
	f.pieces = nil
	f.mu.Unlock()
	return nil
}

// piece is the stored piece that holds byte at.
func (f *StoredFile) piece(at int64) (storedPiece, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.pieces) - 1; i >= 0; i-- {
		if pc := f.pieces[i]; at >= pc.off && at < pc.off+int64(len(pc.data)) {
			if i != len(f.pieces)-1 {
				f.pieces = append(append(f.pieces[:i:i], f.pieces[i+1:]...), pc)
			}
			return pc, nil
		}
	}
	var pc storedPiece
	err := f.d.db.QueryRowxContext(context.Background(), `SELECT offset, data FROM file_bytes
		WHERE source = ? AND path = ? AND offset <= ? ORDER BY offset DESC LIMIT 1`, f.source, f.path, at).Scan(&pc.off, &pc.data)
	if errors.Is(err, sql.ErrNoRows) || err == nil && at >= pc.off+int64(len(pc.data)) {
		return pc, errs.New(errs.CodeStaleIndex, fmt.Sprintf("the index holds no committed bytes of the session file at byte %d", at)).In(f.path).WithHint("run `grove index` on the machine that has the file (source " + f.source + ")")
	}
	if err != nil {
		return pc, f.d.serverErr("read the committed bytes of "+f.path, err)
	}
	if len(f.pieces) >= storedKeep {
		f.pieces = append(f.pieces[:0], f.pieces[1:]...)
	}
	f.pieces = append(f.pieces, pc)
	return pc, nil
}
