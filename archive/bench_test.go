package archive_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// Benchmarks of ingest and of the two ways to answer a path (SPEC §4, §6):
// the recursive CTE over an on-disk index and the pure PathTo over entries
// in memory. Run:
//
//	go test -run '^$' -bench . ./archive
//
// Every session file is generated in b.TempDir(), deterministically
// (math/rand, fixed seed); nothing generated is committed.

// benchDepths are the path lengths the path benchmarks walk.
var benchDepths = []int{10, 1000, 10000}

// BenchmarkIndexFile measures ingest: reading a ~20 MB pi file in salvage
// mode and replacing its rows in a SQLite index file on disk, forced to
// re-read the file every iteration (MB/s of session file).
func BenchmarkIndexFile(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	data := testutil.PiSession(20<<20, 1)
	path := testutil.MustWriteFile(b, dir, "bench-pi.jsonl", data)
	a := mustOpenArchive(b, filepath.Join(dir, "index.db"))
	want, state, _, err := a.IndexFile(ctx, path, true)
	if err != nil || state != jsonl.StateOK {
		b.Fatalf("IndexFile = %d, %s, %v; want a clean first ingest", want, state, err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		got, _, changed, err := a.IndexFile(ctx, path, true)
		if err != nil || !changed || got != want {
			b.Fatalf("IndexFile = %d entries, changed %v, %v; want %d, true, nil", got, changed, err, want)
		}
	}
	b.ReportMetric(float64(want), "entries/op")
	b.ReportMetric(float64(want)*float64(n)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkPathCTE measures index.DB.Path, the recursive CTE that walks
// parent_id upward, on an on-disk index: the path from the deepest leaf of a
// chain of the given depth (with side branches) to its root.
func BenchmarkPathCTE(b *testing.B) {
	for _, depth := range benchDepths {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			ctx := context.Background()
			a, path, leaf, total := benchIndexedChain(b, depth)
			s, err := archive.DBOf(a).SessionByPath(ctx, path)
			if err != nil || s == nil || s.Entries != total {
				b.Fatalf("SessionByPath = %+v, %v; want a session of %d entries", s, err, total)
			}
			b.ReportAllocs()
			for b.Loop() {
				p, err := archive.DBOf(a).Path(ctx, s.SID, leaf)
				if err != nil || len(p) != depth {
					b.Fatalf("DB.Path(%q) = %d entries, %v; want %d", leaf, len(p), err, depth)
				}
			}
			b.ReportMetric(float64(total), "entries")
		})
	}
}

// BenchmarkArchivePath is BenchmarkPathCTE through the facade `grove path`
// uses: Archive.Path resolves the session by id, checks the file is fresh
// (one stat) and then runs the same CTE.
func BenchmarkArchivePath(b *testing.B) {
	for _, depth := range benchDepths {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			ctx := context.Background()
			a, path, leaf, _ := benchIndexedChain(b, depth)
			id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
			b.ReportAllocs()
			for b.Loop() {
				p, err := a.Path(ctx, id, leaf)
				if err != nil || len(p.Entries) != depth {
					b.Fatalf("Path(%q, %q) = %v; want %d entries", id, leaf, err, depth)
				}
			}
		})
	}
}

// BenchmarkPathTo measures the pure PathTo over the entries archive.Load
// read from the same generated files: an id map over all entries, the walk,
// and deep copies of the path's entries (Raw included).
func BenchmarkPathTo(b *testing.B) {
	for _, depth := range benchDepths {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			path, leaf, total := benchChainFile(b, b.TempDir(), depth)
			s, err := archive.Load(path)
			if err != nil || len(s.Entries) != total || len(s.Result.Errors) > 0 {
				b.Fatalf("Load = %v; want %d clean entries", err, total)
			}
			b.ReportAllocs()
			for b.Loop() {
				p, err := archive.PathTo(s.Entries, leaf)
				if err != nil || len(p) != depth {
					b.Fatalf("PathTo(%q) = %d entries, %v; want %d", leaf, len(p), err, depth)
				}
			}
			b.ReportMetric(float64(total), "entries")
		})
	}
}

// benchIndexedChain writes a chain file of the given depth (benchChainFile)
// and indexes it into a fresh on-disk index.
func benchIndexedChain(b *testing.B, depth int) (a *archive.Archive, path, leaf string, total int) {
	b.Helper()
	dir := b.TempDir()
	path, leaf, total = benchChainFile(b, dir, depth)
	a = mustOpenArchive(b, filepath.Join(dir, "index.db"))
	if _, _, _, err := a.IndexFile(context.Background(), path, true); err != nil {
		b.Fatal(err)
	}
	return a, path, leaf, total
}

// benchChainFile writes a plain-dialect session to dir: a chain of depth
// message entries (user, assistant, tool result, in turn) and, off every
// chain entry with probability 1/8, a side branch of 1 to 4 entries. It
// returns the file's path, the id of the chain's last entry (a leaf at
// depth `depth`) and the number of entries.
func benchChainFile(b *testing.B, dir string, depth int) (path, leaf string, total int) {
	b.Helper()
	r := rand.New(rand.NewSource(int64(depth)))
	var buf strings.Builder
	ts := int64(1767225600000)
	line := func(id, parent string, kind int) {
		ts += 1000
		p := "null"
		if parent != "" {
			p = testutil.JSONString(parent)
		}
		var msg string
		switch kind % 3 {
		case 0:
			msg = fmt.Sprintf(`{"role":"user","content":%s,"timestamp":%d}`, testutil.JSONString(testutil.Words(r, 5+r.Intn(40))), ts)
		case 1:
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s},{"type":"toolCall","id":"call-%s","name":"read","arguments":{"path":"src/%s.go"},"rawArguments":"{}"}],"provider":"demo","model":"demo-1","stopReason":"toolUse","timestamp":%d}`,
				testutil.JSONString(testutil.Words(r, 10+r.Intn(120))), id, id, ts)
		default:
			msg = fmt.Sprintf(`{"role":"toolResult","toolCallId":"call-%s","toolName":"read","isError":false,"content":[{"type":"text","text":%s}],"details":{"bytes":%d},"timestamp":%d}`,
				id, testutil.JSONString(testutil.Words(r, 20+r.Intn(200))), r.Intn(9000), ts)
		}
		fmt.Fprintf(&buf, `{"id":%s,"parentId":%s,"timestamp":%d,"type":"message","message":%s}`+"\n", testutil.JSONString(id), p, ts, msg)
		total++
	}
	parent := ""
	for i := 0; i < depth; i++ {
		id := fmt.Sprintf("c%06d", i)
		line(id, parent, i)
		parent = id
		if r.Intn(8) == 0 && i < depth-1 {
			sp := id
			for j, n := 0, 1+r.Intn(4); j < n; j++ {
				sid := fmt.Sprintf("s%06d-%d", i, j)
				line(sid, sp, i+1+j)
				sp = sid
			}
		}
	}
	name := fmt.Sprintf("chain-%d.jsonl", depth)
	return testutil.MustWriteFile(b, dir, name, []byte(buf.String())), parent, total
}

// BenchmarkSearch measures Archive.Search, snippets included, on a
// generated corpus of about 20 MB (internal/corpusgen, seed 1), one
// sub-benchmark per query of the bench harness's fixed set.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	o := corpusgen.DefaultOptions()
	o.Size = 20_000_000
	if _, err := corpusgen.Generate(ctx, filepath.Join(dir, "corpus"), o); err != nil {
		b.Fatal(err)
	}
	a := mustOpenArchive(b, filepath.Join(dir, "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{filepath.Join(dir, "corpus")}}); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{corpusgen.CommonWord, corpusgen.RareWord, `"` + corpusgen.Phrase + `"`, corpusgen.ChineseWord, "serial*"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Search(ctx, archive.SearchOptions{Query: q, Limit: 20}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
