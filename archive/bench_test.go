package archive_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
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
	data := benchGenPi(20<<20, 1)
	path := testutil.MustWriteFile(b, dir, "bench-pi.jsonl", data)
	a := benchOpen(b, filepath.Join(dir, "index.db"))
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
			dir := b.TempDir()
			path, leaf, total := benchChainFile(b, dir, depth)
			a := benchOpen(b, filepath.Join(dir, "index.db"))
			if _, _, _, err := a.IndexFile(ctx, path, true); err != nil {
				b.Fatal(err)
			}
			s, err := a.DB().SessionByPath(ctx, path)
			if err != nil || s == nil || s.Entries != total {
				b.Fatalf("SessionByPath = %+v, %v; want a session of %d entries", s, err, total)
			}
			b.ReportAllocs()
			for b.Loop() {
				p, err := a.DB().Path(ctx, s.SID, leaf)
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
			dir := b.TempDir()
			path, leaf, _ := benchChainFile(b, dir, depth)
			a := benchOpen(b, filepath.Join(dir, "index.db"))
			if _, _, _, err := a.IndexFile(ctx, path, true); err != nil {
				b.Fatal(err)
			}
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

func benchOpen(b *testing.B, dbPath string) *archive.Archive {
	b.Helper()
	a, err := archive.Open(context.Background(), dbPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	return a
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
			p = benchJSON(parent)
		}
		var msg string
		switch kind % 3 {
		case 0:
			msg = fmt.Sprintf(`{"role":"user","content":%s,"timestamp":%d}`, benchJSON(benchWords(r, 5+r.Intn(40))), ts)
		case 1:
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s},{"type":"toolCall","id":"call-%s","name":"read","arguments":{"path":"src/%s.go"},"rawArguments":"{}"}],"provider":"demo","model":"demo-1","stopReason":"toolUse","timestamp":%d}`,
				benchJSON(benchWords(r, 10+r.Intn(120))), id, id, ts)
		default:
			msg = fmt.Sprintf(`{"role":"toolResult","toolCallId":"call-%s","toolName":"read","isError":false,"content":[{"type":"text","text":%s}],"details":{"bytes":%d},"timestamp":%d}`,
				id, benchJSON(benchWords(r, 20+r.Intn(200))), r.Intn(9000), ts)
		}
		fmt.Fprintf(&buf, `{"id":%s,"parentId":%s,"timestamp":%d,"type":"message","message":%s}`+"\n", benchJSON(id), p, ts, msg)
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

// benchGenPi returns a pi version 3 session of at least size bytes, shaped
// like jsonl's benchmark file: mostly a chain with occasional branches,
// prompts of a few hundred bytes, assistant turns of 1-5 KB, tool results up
// to ~16 KB, and every 4 MB a 1 MB base64 image.
func benchGenPi(size int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	var buf strings.Builder
	buf.Grow(size + 2<<20)
	buf.WriteString(`{"type":"session","version":3,"id":"bench-pi","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/workspace/bench"}` + "\n")
	base := time.Date(2026, 3, 3, 8, 0, 0, 0, time.UTC)
	var ids []string
	nextImage := 4 << 20
	for i := 1; buf.Len() < size; i++ {
		id := fmt.Sprintf("%08x", uint32(i)*2654435761)
		parent := "null"
		if n := len(ids); n > 0 {
			p := ids[n-1]
			if r.Intn(20) == 0 {
				p = ids[max(0, n-1-r.Intn(50))]
			}
			parent = benchJSON(p)
		}
		ts := base.Add(time.Duration(i) * 1500 * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
		fmt.Fprintf(&buf, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":`, id, parent, ts)
		switch k := r.Intn(100); {
		case buf.Len() >= nextImage:
			nextImage += 4 << 20
			img := make([]byte, 768<<10)
			r.Read(img)
			fmt.Fprintf(&buf, `{"role":"toolResult","toolCallId":"toolu_%s","toolName":"screenshot","isError":false,"content":[{"type":"image","data":"%s","mimeType":"image/png"}]}}`,
				id, base64.StdEncoding.EncodeToString(img))
		case k < 30:
			fmt.Fprintf(&buf, `{"role":"user","content":[{"type":"text","text":%s}]}}`, benchJSON(benchWords(r, 10+r.Intn(60))))
		case k < 65:
			fmt.Fprintf(&buf, `{"role":"assistant","content":[{"type":"thinking","thinking":%s},{"type":"text","text":%s},{"type":"toolCall","id":"toolu_%s","name":"bash","arguments":{"command":%s}}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":%d,"output":%d},"stopReason":"toolUse"}}`,
				benchJSON(benchWords(r, 20+r.Intn(300))), benchJSON(benchWords(r, 10+r.Intn(150))), id, benchJSON(benchWords(r, 3+r.Intn(12))), r.Intn(100000), r.Intn(4000))
		default:
			var out strings.Builder
			for j, n := 0, 1+r.Intn(200); j < n; j++ {
				fmt.Fprintf(&out, "src/main.go:%d:%d: %s\n", r.Intn(900), r.Intn(80), benchWords(r, 4+r.Intn(8)))
			}
			fmt.Fprintf(&buf, `{"role":"toolResult","toolCallId":"toolu_%s","toolName":"bash","isError":false,"content":[{"type":"text","text":%s}],"details":{"exitCode":0}}}`,
				id, benchJSON(out.String()))
		}
		buf.WriteByte('\n')
		ids = append(ids, id)
	}
	return []byte(buf.String())
}

var benchVocab = strings.Fields(`the a file test function return error nil value context path leaf entry
	index session branch commit read write parse line offset byte go run build main package import
	读取 文件 测试 函数 错误 会话 分支 "quoted" back\slash emoji-🌳 über café`)

func benchWords(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchVocab[r.Intn(len(benchVocab))]
	}
	return strings.Join(w, " ")
}

func benchJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
