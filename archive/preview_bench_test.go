package archive_test

import (
	"bufio"
	"os"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// BenchmarkPreview previews every line of the corpus session (1,018 pi
// entries, 952 KB): what grove tree --full and grove leaves pay per line.
func BenchmarkPreview(b *testing.B) {
	f, err := os.Open(testutil.MustShared(b, "corpus/pi/large-session.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	size := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
		size += len(sc.Bytes())
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, l := range lines {
			archive.Preview(l, archive.PreviewWidth)
		}
	}
}
