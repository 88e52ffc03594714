package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/ingest"
)

// ageFiles sets every file below dir an hour back, as sessions not written
// in the last moments are: their stat is trusted (index.RacyWindowMs).
func ageFiles(b *testing.B, dir string) []string {
	var files []string
	at := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			os.Chtimes(p, at, at)
			files = append(files, p)
		}
		return err
	})
	return files
}

// BenchmarkRefresh measures `grove index` when little changed (docs/indexing.md
// "Keeping the index current"), in process on an index on disk:
//
//   - noop: 2,000 session files of 4–9 KB, none changed: a stat each;
//   - append: one ~20 MB pi session, a 1 KB entry appended before each
//     refresh, which reads it from its committed length (bytes_read/op
//     must not grow with the file).
func BenchmarkRefresh(b *testing.B) {
	ctx := context.Background()
	b.Run("noop-2000-files", func(b *testing.B) {
		dir := b.TempDir()
		o := corpusgen.DefaultOptions()
		o.Size, o.Files, o.MaxSession = 100<<20, 2000, 8<<10
		if _, err := corpusgen.Generate(ctx, filepath.Join(dir, "corpus"), o); err != nil {
			b.Fatal(err)
		}
		ageFiles(b, filepath.Join(dir, "corpus"))
		a := mustOpen(b, filepath.Join(dir, "index.db"))
		opts := ingest.IndexOptions{Roots: []string{filepath.Join(dir, "corpus")}}
		if _, err := a.Index(ctx, opts); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			sum, err := a.Index(ctx, opts)
			if err != nil || sum.Unchanged != 2000 {
				b.Fatalf("no-op refresh = %+v, %v; want 2000 unchanged", sum, err)
			}
		}
	})
	b.Run("append-1KB-to-20MB", func(b *testing.B) {
		dir := b.TempDir()
		o := corpusgen.DefaultOptions()
		o.Size, o.Files, o.BigSession = 1<<20, 1, 20<<20
		if _, err := corpusgen.Generate(ctx, filepath.Join(dir, "corpus"), o); err != nil {
			b.Fatal(err)
		}
		var big string
		var size int64
		for _, f := range ageFiles(b, filepath.Join(dir, "corpus")) {
			if fi, err := os.Stat(f); err == nil && fi.Size() > size {
				big, size = f, fi.Size()
			}
		}
		a := mustOpen(b, filepath.Join(dir, "index.db"))
		opts := ingest.IndexOptions{Roots: []string{filepath.Join(dir, "corpus")}}
		if _, err := a.Index(ctx, opts); err != nil {
			b.Fatal(err)
		}
		// Each entry continues the active branch, as an agent's next turn.
		data, _ := os.ReadFile(big)
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		var last struct{ ID string }
		json.Unmarshal([]byte(lines[len(lines)-1]), &last)
		parent := last.ID
		var read int64
		i := 0
		for b.Loop() {
			i++
			id := fmt.Sprintf("bench-%d", i)
			f, _ := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
			fmt.Fprintf(f, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-11-30T00:00:00.000Z","message":{"role":"user","content":%q}}`+"\n", id, parent, strings.Repeat("x", 900))
			f.Close()
			parent = id
			sum, err := a.Index(ctx, opts)
			if err != nil || sum.Appended != 1 {
				b.Fatalf("refresh after an append = %+v, %v; want 1 file appended", sum, err)
			}
			read += sum.BytesRead
		}
		b.ReportMetric(float64(read)/float64(i), "bytes_read/op")
	})
}
