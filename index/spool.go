package index

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sync"
	"unsafe"
)

// spool carries a cold build's search text from the writer of entry rows
// to the text builder through an unlinked file beside the index, so that
// the writer never waits for the builder (the entry rows are done, and
// listings answer, while the text is still being built) and memory does
// not hold what the builder has not taken yet. A record is one batch,
// sorted by rowid: its length (8 bytes), then per text its rowid (8), its
// length (4) and its bytes.
type spool struct {
	f *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	written int64 // bytes of whole records
	closed  bool
	err     error // the writer's
}

func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, ".grove-text-*.spool")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // nothing is left behind, however the build ends
	s := &spool{f: f}
	s.cond = sync.NewCond(&s.mu)
	return s, nil
}

// put appends one record: texts, sorted by rowid.
func (s *spool) put(texts []pendingText) error {
	n := 8
	for i := range texts {
		n += 12 + len(texts[i].text)
	}
	buf := make([]byte, 0, min(n, 1<<20))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(n-8))
	s.mu.Lock()
	off := s.written
	s.mu.Unlock()
	flush := func() error {
		_, err := s.f.WriteAt(buf, off)
		off += int64(len(buf))
		buf = buf[:0]
		return err
	}
	for i := range texts {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(texts[i].doc))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(texts[i].text)))
		if len(buf)+len(texts[i].text) > cap(buf) {
			if err := flush(); err != nil {
				return s.fail(err)
			}
			if len(texts[i].text) > cap(buf) { // a long text: straight from its bytes
				if _, err := s.f.WriteAt(unsafe.Slice(unsafe.StringData(texts[i].text), len(texts[i].text)), off); err != nil {
					return s.fail(err)
				}
				off += int64(len(texts[i].text))
				continue
			}
		}
		buf = append(buf, texts[i].text...)
	}
	if err := flush(); err != nil {
		return s.fail(err)
	}
	s.mu.Lock()
	s.written = off
	s.cond.Broadcast()
	s.mu.Unlock()
	return nil
}

func (s *spool) fail(err error) error {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	return err
}

// close says no record comes after those put.
func (s *spool) close() {
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
}

// next waits for the record at off and returns it decoded, and the offset
// of the one after; io.EOF once the spool is closed and read to its end.
func (s *spool) next(off int64) ([]pendingText, int64, error) {
	s.mu.Lock()
	for off >= s.written && !s.closed && s.err == nil {
		s.cond.Wait()
	}
	written, err := s.written, s.err
	s.mu.Unlock()
	if err != nil {
		return nil, off, err // the writer failed, or the build is stopped (textBuild.close)
	}
	if off >= written {
		return nil, off, io.EOF
	}
	var head [8]byte
	if _, err := s.f.ReadAt(head[:], off); err != nil {
		return nil, off, err
	}
	n := int64(binary.LittleEndian.Uint64(head[:]))
	body := make([]byte, n)
	if _, err := s.f.ReadAt(body, off+8); err != nil {
		return nil, off, err
	}
	var out []pendingText
	for p := 0; p < len(body); {
		if len(body)-p < 12 {
			return nil, off, errors.New("search text spool: a cut record")
		}
		doc := int64(binary.LittleEndian.Uint64(body[p:]))
		k := int(binary.LittleEndian.Uint32(body[p+8:]))
		p += 12
		if k > len(body)-p {
			return nil, off, errors.New("search text spool: a cut record")
		}
		var t string
		if k > 0 {
			t = unsafe.String(&body[p], k) // body is this record's alone
		}
		out = append(out, pendingText{doc: doc, text: t})
		p += k
	}
	return out, off + 8 + n, nil
}

func (s *spool) remove() { s.f.Close() }
