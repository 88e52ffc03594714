package jsonl_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/jsonl"
)

// Benchmarks of the committed-log writer (SPEC §5) on a real file in
// b.TempDir(). Run:
//
//	go test ./jsonl -run '^$' -bench Writer -count 5 -benchtime 1s
//
// MB/s counts the bytes of each line with its LF; appends/s is b.N over the
// measured time. Every benchRotate appends the writer is closed and a new
// file begun, outside the measured time, so that neither the file nor the
// writer's in-memory entries grow with b.N.

// benchRotate is how many appends go to one file.
const benchRotate = 8192

// benchLines returns benchRotate plain-dialect lines of exactly size bytes
// each: a chain (each entry the child of the one before), as raw JSON.
func benchLines(size int) []json.RawMessage {
	lines := make([]json.RawMessage, benchRotate)
	for i := range lines {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf("%q", fmt.Sprintf("b%07d", i-1))
		}
		head := fmt.Sprintf(`{"id":"b%07d","parentId":%s,"timestamp":%d,"type":"message","message":{"role":"user","content":"`,
			i, parent, 1767225600000+i)
		const tail = `"}}`
		fill := max(size-len(head)-len(tail), 1) // the root's "null" is shorter than an id: it gets more

		lines[i] = json.RawMessage(head + strings.Repeat("x", fill) + tail)
	}
	return lines
}

// benchWriter is a writer on a file it replaces every benchRotate appends.
type benchWriter struct {
	b    *testing.B
	dir  string
	opts jsonl.WriterOptions
	n    int
	w    *jsonl.Writer
}

func newBenchWriter(b *testing.B, fsync bool) *benchWriter {
	bw := &benchWriter{b: b, dir: b.TempDir(), opts: jsonl.WriterOptions{Fsync: fsync}}
	bw.open()
	b.Cleanup(func() { bw.w.Close() })
	return bw
}

func (bw *benchWriter) open() {
	bw.n++
	w, err := jsonl.OpenWriter(filepath.Join(bw.dir, fmt.Sprintf("b%d.jsonl", bw.n)), bw.opts)
	if err != nil {
		bw.b.Fatal(err)
	}
	bw.w = w
}

// rotate closes the writer, removes its file and opens a new one, outside
// the measured time.
func (bw *benchWriter) rotate() {
	bw.b.StopTimer()
	if err := bw.w.Close(); err != nil {
		bw.b.Fatal(err)
	}
	os.Remove(filepath.Join(bw.dir, fmt.Sprintf("b%d.jsonl", bw.n)))
	bw.open()
	bw.b.StartTimer()
}

var benchSizes = []struct {
	name  string
	bytes int
}{{"200B", 200}, {"4KB", 4 << 10}}

// benchMatrix runs fn for fsync off and on and for each entry size.
func benchMatrix(b *testing.B, fn func(b *testing.B, bw *benchWriter, lines []json.RawMessage)) {
	for _, fsync := range []bool{false, true} {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("fsync=%v/size=%s", fsync, size.name), func(b *testing.B) {
				lines := benchLines(size.bytes)
				b.SetBytes(int64(size.bytes + 1))
				b.ReportAllocs()
				fn(b, newBenchWriter(b, fsync), lines)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
			})
		}
	}
}

// BenchmarkWriterAppend measures Append, one at a time: validation,
// serialization, the queue hop, one write(2) and, with fsync, one fsync(2).
func BenchmarkWriterAppend(b *testing.B) {
	benchMatrix(b, func(b *testing.B, bw *benchWriter, lines []json.RawMessage) {
		i := 0
		for b.Loop() {
			if err := bw.w.Append(lines[i]); err != nil {
				b.Fatal(err)
			}
			if i++; i == len(lines) {
				bw.rotate()
				i = 0
			}
		}
	})
}

// BenchmarkWriterAppendAsync issues appends without waiting, and waits for
// all of them at the end (and before each file rotation): the caller-side
// cost is validation and serialization, and the commit goroutine writes
// behind it.
func BenchmarkWriterAppendAsync(b *testing.B) {
	benchMatrix(b, func(b *testing.B, bw *benchWriter, lines []json.RawMessage) {
		pending := make([]*jsonl.Pending, 0, len(lines))
		wait := func() {
			for _, p := range pending {
				if err := p.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			pending = pending[:0]
		}
		b.ResetTimer()
		for n := 0; n < b.N; n++ {
			pending = append(pending, bw.w.AppendAsync(lines[len(pending)]))
			if len(pending) == len(lines) {
				wait()
				bw.rotate()
			}
		}
		wait() // inside the measured time: every append has committed
		b.StopTimer()
	})
}
