// Package iox holds small io helpers shared by grove's front end and its
// renderers.
package iox

import (
	"bytes"
	"io"
	"sync"
)

// StickyWriter passes writes to W until one fails; from then on every
// write returns that first error without touching W. Err is that error
// (nil while every write succeeded), so a caller can write a whole
// document and check once, and tell a failed write from its own errors.
type StickyWriter struct {
	W   io.Writer
	Err error
}

// Write writes p to W unless an earlier write failed.
func (e *StickyWriter) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	return n, err
}

// WriteString writes s; a failure is kept in Err.
func (e *StickyWriter) WriteString(s string) { _, _ = io.WriteString(e, s) }

// LockedBuffer is a buffer that one goroutine may write while another
// reads it: a child process's output, looked at as it comes. Its zero
// value is ready.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; it never fails.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
