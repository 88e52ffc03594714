package main

import "io"

// docChunk is the size of one piece of a docBuffer, bytes.
const docChunk = 1 << 20

// docBuffer holds a document made in memory before it is written (so a
// Ctrl-C writes nothing) in pieces of docChunk bytes (a longer write is
// one piece of its own), never in one slice grown by doubling: an 80 MB
// export costs 80 MB, not the 190 MB a bytes.Buffer touches while it grows
// (SPEC §2.8).
type docBuffer struct {
	chunks [][]byte
	n      int
}

func (d *docBuffer) Write(p []byte) (int, error) { return add(d, p), nil }

func (d *docBuffer) WriteString(s string) (int, error) { return add(d, s), nil }

func (d *docBuffer) WriteByte(c byte) error {
	add(d, []byte{c})
	return nil
}

// add appends p to d without a copy beyond the one into d.
func add[T string | []byte](d *docBuffer, p T) int {
	d.n += len(p)
	if len(p) >= docChunk {
		d.chunks = append(d.chunks, append([]byte(nil), p...))
		return len(p)
	}
	if k := len(d.chunks); k == 0 || len(d.chunks[k-1])+len(p) > cap(d.chunks[k-1]) {
		d.chunks = append(d.chunks, make([]byte, 0, docChunk))
	}
	k := len(d.chunks) - 1
	d.chunks[k] = append(d.chunks[k], p...)
	return len(p)
}

// Len is the document's size, bytes.
func (d *docBuffer) Len() int { return d.n }

// Bytes is the document in one slice (one copy, of its exact size).
func (d *docBuffer) Bytes() []byte {
	b := make([]byte, 0, d.n)
	for _, c := range d.chunks {
		b = append(b, c...)
	}
	return b
}

// WriteTo writes the document to w piece by piece.
func (d *docBuffer) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, c := range d.chunks {
		m, err := w.Write(c)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
