package kept

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"sync"
	"time"
)

// The skippable frames of a kept file (RFC 8878 §3.1.2): a magic number
// and a payload length, both little-endian uint32s, then the payload.
const (
	headMagic = 0x184D2A5F // the head: JSON naming the session file
	descMagic = 0x184D2A5E // a frame's descriptor: raw length, compressed length, CRC-32
	descLen   = 8 + 16     // a descriptor, with its skippable frame header
	idxRecord = 16         // one frame index record: raw offset, file offset
	maxHead   = 1 << 16    // the longest head payload read
	maxFrame  = 64 << 20   // the most raw bytes a frame may say it holds
)

// head is the payload of a kept file's head.
type head struct {
	Source string `json:"source"`
	Path   string `json:"path"`
}

// frame is one zstd frame of a kept file: its raw offset and the file
// offset of its descriptor.
type frame struct {
	raw int64
	off int64
}

// File is one kept session file opened for reading back by offset: an
// io.ReaderAt over its committed bytes [0, Size()). It decodes only the
// frames a read needs, keeping the last one decoded.
type File struct {
	Source, Path string

	base   string
	f      *os.File
	frames []frame
	rawEnd int64 // raw bytes in the frames
	offEnd int64 // file offset past the last whole frame
	torn   bool  // bytes past offEnd that are no whole frame

	mu     sync.Mutex
	cached int // index in frames of buf, -1 when none
	buf    []byte
}

// Size is the committed bytes the file holds.
func (f *File) Size() int64 { return f.rawEnd }

// ModTime is the kept copy's modification time: its session file's, as
// the last write set it (Writer.SetModTime); the zero time when the copy
// cannot be stat'ed.
func (f *File) ModTime() time.Time {
	fi, err := f.f.Stat()
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// openFile opens base's kept file, reading its head and frame index and
// checking the frames the index does not list (see readFrames).
func openFile(base string, write bool) (*File, error) {
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	osf, err := os.OpenFile(base+zstExt, flag, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotKept
	}
	if err != nil {
		return nil, err
	}
	f := &File{base: base, f: osf, cached: -1}
	st, err := osf.Stat()
	if err != nil {
		osf.Close()
		return nil, err
	}
	h, headEnd, err := readHead(osf, st.Size())
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("%s: %w", base+zstExt, err)
	}
	f.Source, f.Path = h.Source, h.Path
	if err := f.readFrames(headEnd, st.Size()); err != nil {
		osf.Close()
		return nil, err
	}
	return f, nil
}

// readHead reads the head of a kept file of size bytes: its payload and
// where the first frame starts. Errors: ErrCorrupt.
func readHead(r io.ReaderAt, size int64) (head, int64, error) {
	var h head
	var b [8]byte
	if _, err := r.ReadAt(b[:], 0); err != nil || binary.LittleEndian.Uint32(b[:4]) != headMagic {
		return h, 0, ErrCorrupt
	}
	n := int64(binary.LittleEndian.Uint32(b[4:]))
	if n > maxHead || 8+n > size {
		return h, 0, ErrCorrupt
	}
	p := make([]byte, n)
	if _, err := r.ReadAt(p, 8); err != nil {
		return h, 0, ErrCorrupt
	}
	if err := json.Unmarshal(p, &h); err != nil || h.Path == "" {
		return h, 0, ErrCorrupt
	}
	return h, 8 + n, nil
}

// readFrames reads the frame index and checks it against the file: records
// that do not fit the file are dropped, and the frames past the last
// record are read from the file, each decoded and checked against its
// descriptor. The first frame that is not whole and right ends the file's
// frames: it and what follows are a torn frame (f.torn).
func (f *File) readFrames(headEnd, size int64) error {
	f.frames = f.frames[:0]
	f.rawEnd, f.offEnd = 0, headEnd
	if idx, err := os.ReadFile(f.base + idxExt); err == nil {
		for i := 0; i+idxRecord <= len(idx); i += idxRecord {
			fr := frame{raw: int64(binary.LittleEndian.Uint64(idx[i:])), off: int64(binary.LittleEndian.Uint64(idx[i+8:]))}
			if fr.raw != f.rawEnd || fr.off != f.offEnd {
				break // a record that does not follow: the rest is read from the file
			}
			rawLen, compLen, _, ok := f.descriptor(fr.off, size)
			if !ok {
				break
			}
			f.frames = append(f.frames, fr)
			f.rawEnd += rawLen
			f.offEnd = fr.off + descLen + compLen
		}
	}
	for f.offEnd < size {
		rawLen, compLen, crc, ok := f.descriptor(f.offEnd, size)
		if !ok {
			f.torn = true
			break
		}
		data, err := f.decode(f.offEnd+descLen, compLen, rawLen)
		if err != nil || crc32.ChecksumIEEE(data) != crc {
			f.torn = true
			break
		}
		f.frames = append(f.frames, frame{raw: f.rawEnd, off: f.offEnd})
		f.rawEnd += rawLen
		f.offEnd += descLen + compLen
	}
	return nil
}

// descriptor reads the descriptor at off of a file of size bytes; ok is
// false when there is none there, or its frame does not end by size.
func (f *File) descriptor(off, size int64) (rawLen, compLen int64, crc uint32, ok bool) {
	if off+descLen > size {
		return 0, 0, 0, false
	}
	var b [descLen]byte
	if _, err := f.f.ReadAt(b[:], off); err != nil {
		return 0, 0, 0, false
	}
	if binary.LittleEndian.Uint32(b[:4]) != descMagic || binary.LittleEndian.Uint32(b[4:8]) != 16 {
		return 0, 0, 0, false
	}
	rawLen = int64(binary.LittleEndian.Uint64(b[8:]))
	compLen = int64(binary.LittleEndian.Uint32(b[16:]))
	crc = binary.LittleEndian.Uint32(b[20:])
	if rawLen <= 0 || rawLen > maxFrame || compLen <= 0 || off+descLen+compLen > size {
		return 0, 0, 0, false
	}
	return rawLen, compLen, crc, true
}

// decode reads and inflates the zstd frame of compLen bytes at off, which
// must hold rawLen bytes.
func (f *File) decode(off, compLen, rawLen int64) ([]byte, error) {
	comp := make([]byte, compLen)
	if _, err := f.f.ReadAt(comp, off); err != nil {
		return nil, err
	}
	_, d := codecs()
	data, err := d.DecodeAll(comp, make([]byte, 0, rawLen))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != rawLen {
		return nil, fmt.Errorf("frame of %d bytes holds %d", rawLen, len(data))
	}
	return data, nil
}

// frameBytes is frame i inflated; the caller holds f.mu.
func (f *File) frameBytes(i int) ([]byte, error) {
	if f.cached == i {
		return f.buf, nil
	}
	fr := f.frames[i]
	end, offEnd := f.rawEnd, f.offEnd
	if i+1 < len(f.frames) {
		end, offEnd = f.frames[i+1].raw, f.frames[i+1].off
	}
	data, err := f.decode(fr.off+descLen, offEnd-fr.off-descLen, end-fr.raw)
	if err == nil {
		if _, _, crc, ok := f.descriptor(fr.off, offEnd); !ok || crc32.ChecksumIEEE(data) != crc {
			err = errors.New("CRC-32 mismatch")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: frame at byte %d: %w (%v)", f.base+zstExt, fr.off, ErrCorrupt, err)
	}
	f.cached, f.buf = i, data
	return data, nil
}

// ReadAt reads len(p) committed bytes at off (io.ReaderAt).
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset", f.base+zstExt)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= f.rawEnd {
			return n, io.EOF
		}
		i := sort.Search(len(f.frames), func(i int) bool { return f.frames[i].raw > at }) - 1
		data, err := f.frameBytes(i)
		if err != nil {
			return n, err
		}
		n += copy(p[n:], data[at-f.frames[i].raw:])
	}
	return n, nil
}
