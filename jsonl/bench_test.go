package jsonl_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// Benchmarks of the committed-line reader over a generated pi file. Run:
//
//	go test -run '^$' -bench . ./jsonl
//
// The file is generated in memory, deterministically (math/rand, fixed
// seed); nothing is written to disk and nothing generated is committed.

// benchPiSize is the size of the generated pi file, in bytes.
const benchPiSize = 20 << 20

var benchPi = sync.OnceValue(func() []byte { return testutil.PiSession(benchPiSize, 1) })

// BenchmarkScanner measures line splitting alone (SPEC §2.1): MB/s of
// Scanner over a ~20 MB pi file whose lines range from ~100 bytes to 1 MB.
func BenchmarkScanner(b *testing.B) {
	data := benchPi()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	lines := 0
	for b.Loop() {
		sc := jsonl.NewScanner(bytes.NewReader(data))
		lines = 0
		for sc.Scan() {
			lines++
		}
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines), "lines/op")
}

// BenchmarkReadPi measures Read in Salvage mode over the same file: line
// splitting, UTF-8 and JSON checks, and the pi dialect's entry validation
// (SPEC §2.4, §3.2), without KeepRaw copies.
func BenchmarkReadPi(b *testing.B) {
	data := benchPi()
	res, err := jsonl.Read(bytes.NewReader(data), jsonl.Options{Mode: jsonl.Salvage}, nil)
	if err != nil || len(res.Errors) > 0 || len(res.Warnings) > 0 || res.Dialect != jsonl.Pi {
		b.Fatalf("generated file: err %v, dialect %s, errors %v, warnings %v", err, res.Dialect, res.Errors, res.Warnings)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	entries, n := 0, 0
	for b.Loop() {
		n++
		entries = 0
		_, err := jsonl.Read(bytes.NewReader(data), jsonl.Options{Mode: jsonl.Salvage}, func(jsonl.Entry) error {
			entries++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(entries), "entries/op")
	b.ReportMetric(float64(entries)*float64(n)/b.Elapsed().Seconds(), "entries/s")
}
