package kept

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// FrameMax is the most raw bytes a frame holds: a read back inflates at
// most this much. At most maxFrame.
var FrameMax = 256 << 10

// Writer appends to the kept copy of one session file. A torn frame left
// by a crash is cut when the writer opens it.
type Writer struct {
	*File
	st  *Store
	buf []byte   // a frame as written, reused
	idx *os.File // the frame index, open once a frame was appended
}

// Close closes the kept file and its frame index.
func (w *Writer) Close() error {
	if w.idx != nil {
		w.idx.Close()
		w.idx = nil
	}
	return w.File.Close()
}

// Writer opens the kept copy of path for appending, creating it (and its
// folders, 0700; files 0600) when there is none. Errors: the file
// system's (a full disk among them), ErrCorrupt for a head that is not
// one of a kept file.
func (st *Store) Writer(source, path string) (*Writer, error) {
	base := st.Name(source, path)
	f, err := openFile(base, true)
	if errors.Is(err, ErrNotKept) || (err != nil && errors.Is(err, ErrCorrupt) && headTorn(base)) {
		f, err = create(base, head{Source: source, Path: path})
	}
	if err != nil {
		return nil, err
	}
	if f.Source != source || f.Path != path {
		f.Close()
		return nil, fmt.Errorf("%s: %w: it keeps %q, not %q", base+zstExt, ErrCorrupt, f.Path, path)
	}
	w := &Writer{File: f, st: st}
	if err := w.cutTorn(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// headTorn reports whether base's file is shorter than a head: a crash
// while it was created.
func headTorn(base string) bool {
	fi, err := os.Stat(base + zstExt)
	return err == nil && fi.Size() < 8+maxHead && func() bool {
		b, err := os.ReadFile(base + zstExt)
		if err != nil || len(b) < 8 {
			return err == nil
		}
		return binary.LittleEndian.Uint32(b[:4]) == headMagic && int64(8+binary.LittleEndian.Uint32(b[4:8])) > int64(len(b))
	}()
}

// create writes a new kept file holding only its head, and an empty frame
// index.
func create(base string, h head) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
		return nil, err
	}
	p, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	b := binary.LittleEndian.AppendUint32(nil, headMagic)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
	b = append(b, p...)
	osf, err := os.OpenFile(base+zstExt, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := osf.Write(b); err != nil {
		osf.Close()
		os.Remove(base + zstExt)
		return nil, err
	}
	if err := os.WriteFile(base+idxExt, nil, 0o600); err != nil {
		osf.Close()
		os.Remove(base + zstExt)
		return nil, err
	}
	return &File{Source: h.Source, Path: h.Path, base: base, f: osf, cached: -1, offEnd: int64(len(b))}, nil
}

// cutTorn cuts a torn frame off the file and writes the frame index again
// when it does not list every frame.
func (w *Writer) cutTorn() error {
	if w.torn {
		if err := w.f.Truncate(w.offEnd); err != nil {
			return err
		}
		w.torn = false
	}
	fi, err := os.Stat(w.base + idxExt)
	if err == nil && fi.Size() == int64(len(w.frames))*idxRecord {
		return nil
	}
	return w.writeIndex()
}

// writeIndex writes the frame index whole.
func (w *Writer) writeIndex() error {
	if w.idx != nil {
		w.idx.Close()
		w.idx = nil
	}
	b := make([]byte, 0, len(w.frames)*idxRecord)
	for _, fr := range w.frames {
		b = binary.LittleEndian.AppendUint64(b, uint64(fr.raw))
		b = binary.LittleEndian.AppendUint64(b, uint64(fr.off))
	}
	return os.WriteFile(w.base+idxExt, b, 0o600)
}

// Len is the committed bytes kept.
func (w *Writer) Len() int64 { return w.rawEnd }

// Append appends committed bytes as one frame or more, of at most
// FrameMax bytes each (a frame may end inside a line: reads cross frames).
// On an error nothing of p is kept: the file is cut back to where it was.
func (w *Writer) Append(p []byte) error {
	rawEnd, offEnd, nframes := w.rawEnd, w.offEnd, len(w.frames)
	for len(p) > 0 {
		n := min(len(p), FrameMax)
		if err := w.appendFrame(p[:n]); err != nil {
			w.f.Truncate(offEnd) // best effort: Open cuts a torn frame too
			w.rawEnd, w.offEnd, w.frames = rawEnd, offEnd, w.frames[:nframes]
			w.writeIndex()
			return err
		}
		p = p[n:]
	}
	return nil
}

// appendFrame writes p as one frame, then its frame index record.
func (w *Writer) appendFrame(p []byte) error {
	e, _ := codecs()
	if cap(w.buf) < descLen+len(p)/2 {
		w.buf = make([]byte, 0, descLen+len(p)/2+64)
	}
	b := e.EncodeAll(p, w.buf[:descLen])
	w.buf = b[:0]
	binary.LittleEndian.PutUint32(b[0:], descMagic)
	binary.LittleEndian.PutUint32(b[4:], 16)
	binary.LittleEndian.PutUint64(b[8:], uint64(len(p)))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(b)-descLen))
	binary.LittleEndian.PutUint32(b[20:], crc32.ChecksumIEEE(p))
	if _, err := w.f.WriteAt(b, w.offEnd); err != nil {
		return err
	}
	fr := frame{raw: w.rawEnd, off: w.offEnd}
	rec := binary.LittleEndian.AppendUint64(nil, uint64(fr.raw))
	rec = binary.LittleEndian.AppendUint64(rec, uint64(fr.off))
	if w.idx == nil {
		idx, err := os.OpenFile(w.base+idxExt, os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		w.idx = idx
	}
	if _, err := w.idx.WriteAt(rec, int64(len(w.frames))*idxRecord); err != nil {
		return err
	}
	w.frames = append(w.frames, fr)
	w.rawEnd += int64(len(p))
	w.offEnd += int64(len(b))
	w.cached = -1
	return nil
}

// Cut cuts the kept bytes back to the last frame boundary at or before n
// and returns the committed bytes kept then.
func (w *Writer) Cut(n int64) (int64, error) {
	if n >= w.rawEnd {
		return w.rawEnd, nil
	}
	// The last frame that starts at or before n (frames[0] starts at 0).
	k := sort.Search(len(w.frames), func(i int) bool { return w.frames[i].raw > n }) - 1
	off, raw := w.frames[k].off, w.frames[k].raw
	if err := w.f.Truncate(off); err != nil {
		return w.rawEnd, err
	}
	w.frames = w.frames[:k]
	w.rawEnd, w.offEnd, w.cached = raw, off, -1
	return raw, w.writeIndex()
}

// SetModTime sets the kept copy's modification time to t, the session
// file's: a copy whose file is gone still says when that file last
// changed (File.ModTime), which is all a messages log says of its time.
func (w *Writer) SetModTime(t time.Time) error {
	return os.Chtimes(w.base+zstExt, t, t)
}

// Drop closes w and removes the current copy it was writing (its bytes
// and frame index), leaving earlier versions and copies set aside: a copy
// made by a write that failed leaves nothing behind.
func (w *Writer) Drop() error {
	w.Close()
	for _, p := range []string{w.base + zstExt, w.base + idxExt} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Retire makes the bytes kept so far an earlier version of the session
// file (Store.OpenVersion) and starts the current version empty (SPEC
// §11: a file whose committed prefix changed keeps its old bytes).
func (w *Writer) Retire() error {
	if w.rawEnd == 0 {
		return nil
	}
	if w.idx != nil {
		w.idx.Close()
		w.idx = nil
	}
	n := 1 // after the highest kept: never over a version still kept
	if vs := w.st.VersionNumbers(w.Source, w.Path); len(vs) > 0 {
		n = vs[len(vs)-1] + 1
	}
	to := fmt.Sprintf("%s.v%d", w.base, n)
	if err := os.Rename(w.base+idxExt, to+idxExt); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(w.base+zstExt, to+zstExt); err != nil {
		return err
	}
	w.f.Close()
	f, err := create(w.base, head{Source: w.Source, Path: w.Path})
	if err != nil {
		return err
	}
	w.File = f
	return nil
}
