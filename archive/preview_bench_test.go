package archive_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
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

// BenchmarkPreviewIn previews every line of a dialect's corpus files
// (../shared/corpus/<dialect>), as grove tree --full pays per line.
func BenchmarkPreviewIn(b *testing.B) {
	for _, d := range []jsonl.Dialect{jsonl.Messages, jsonl.Claude, jsonl.Codex} {
		b.Run(string(d), func(b *testing.B) {
			root := testutil.MustShared(b, "corpus/"+string(d))
			var lines [][]byte
			size := 0
			err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
				if err != nil || de.IsDir() || !strings.HasSuffix(p, ".jsonl") {
					return err
				}
				data, err := os.ReadFile(p)
				for _, l := range bytes.Split(data, []byte("\n")) {
					lines = append(lines, l)
					size += len(l)
				}
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, l := range lines {
					archive.PreviewIn(d, l, archive.PreviewWidth)
				}
			}
		})
	}
}
