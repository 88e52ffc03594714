package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// dumpOf is the canonical dump of the index of a.
func dumpOf(t *rapid.T, a *ingest.Indexer) string {
	var b bytes.Buffer
	if err := a.DB().Dump(context.Background(), &b); err != nil {
		t.Fatalf("Dump: %v", err)
	}
	return b.String()
}

// cleanDump indexes root into a new index and dumps it.
func cleanDump(t *rapid.T, root, db string) string {
	ctx := context.Background()
	os.Remove(db)
	a, err := ingest.Open(ctx, db)
	if err != nil {
		t.Fatalf("open clean index: %v", err)
	}
	defer func() {
		a.Close()
		for _, s := range []string{"", "-wal", "-shm", ".lock"} {
			os.Remove(db + s)
		}
	}()
	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatalf("clean index: %v", err)
	}
	return dumpOf(t, a)
}

// sim is a session file the property test grows, rewrites and deletes.
type sim struct {
	path  string
	plain bool
	ids   []string
	n     int // entries written, for fresh ids and times
}

func (s *sim) entry(t *rapid.T) string {
	s.n++
	id := fmt.Sprintf("e%d", s.n)
	if len(s.ids) > 0 && rapid.IntRange(0, 15).Draw(t, "dup") == 0 {
		id = rapid.SampledFrom(s.ids).Draw(t, "dupID") // a duplicated id: damaged
	}
	parent := "null"
	if len(s.ids) > 0 {
		switch rapid.IntRange(0, 9).Draw(t, "parentKind") {
		case 0:
			parent = `"missing"`
		case 1, 2:
			parent = fmt.Sprintf("%q", rapid.SampledFrom(s.ids).Draw(t, "branchFrom")) // a branch
		case 3:
		default:
			parent = fmt.Sprintf("%q", s.ids[len(s.ids)-1])
		}
	}
	s.ids = append(s.ids, id)
	ms := int64(1767225600000) + int64(rapid.IntRange(-5, 50).Draw(t, "dt"))*1000 + int64(s.n)
	words := rapid.SampledFrom([]string{"refresh the index", "索引 重建", "café crème", "tail torn", "grep over json"}).Draw(t, "words")
	if s.plain {
		if rapid.IntRange(0, 4).Draw(t, "meta") == 0 {
			return fmt.Sprintf(`{"id":%q,"parentId":%s,"timestamp":%d,"type":"metadata","key":"cwd","value":"/w/%d"}`, id, parent, ms, s.n)
		}
		return fmt.Sprintf(`{"id":%q,"parentId":%s,"timestamp":%d,"type":"message","message":{"role":"user","content":%q}}`, id, parent, ms, words)
	}
	ts := fmt.Sprintf(`"timestamp":%q,`, time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z"))
	if rapid.IntRange(0, 7).Draw(t, "noTime") == 0 {
		ts = "" // bad_timestamp warning; the doc number falls back
	}
	switch rapid.IntRange(0, 7).Draw(t, "type") {
	case 0:
		target := rapid.SampledFrom(s.ids).Draw(t, "target")
		label := rapid.SampledFrom([]string{"", "keep", "retry"}).Draw(t, "label")
		return fmt.Sprintf(`{"type":"label","id":%q,"parentId":%s,%s"targetId":%q,"label":%q}`, id, parent, ts, target, label)
	case 1:
		name := rapid.SampledFrom([]string{"", "  ", "first name", " second name "}).Draw(t, "name")
		return fmt.Sprintf(`{"type":"session_info","id":%q,"parentId":%s,%s"name":%q}`, id, parent, ts, name)
	case 2:
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,%s"message":{"role":"assistant","content":[{"type":"text","text":%q}]%s}}`, id, parent, ts, words, ownTime(t, ms))
	case 3:
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,%s"message":{"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]%s}}`, id, parent, ts, ownTime(t, ms))
	default:
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,%s"message":{"role":"user","content":%q%s}}`, id, parent, ts, words, ownTime(t, ms))
	}
}

// ownTime is a message's own "timestamp" member, which pi's session list
// prefers to the entry's (SPEC §3.2), or nothing.
func ownTime(t *rapid.T, ms int64) string {
	if rapid.IntRange(0, 2).Draw(t, "ownTime") == 0 {
		return ""
	}
	return fmt.Sprintf(`,"timestamp":%d`, ms+int64(rapid.IntRange(-3000, 3000).Draw(t, "ownDt")))
}

func (s *sim) header(t *rapid.T) string {
	if s.plain {
		return ""
	}
	v := rapid.SampledFrom([]int{3, 3, 3, 2, 1}).Draw(t, "version")
	return fmt.Sprintf(`{"type":"session","version":%d,"id":"sess-%s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`+"\n", v, filepath.Base(s.path))
}

// content is a whole new file: a header and some entries.
func (s *sim) content(t *rapid.T) []byte {
	s.ids, s.n = nil, 0
	var b strings.Builder
	if rapid.IntRange(0, 9).Draw(t, "title") == 0 {
		b.WriteString(`{"type":"title","title":"t"}` + "\n")
	}
	b.WriteString(s.header(t))
	for i := rapid.IntRange(0, 6).Draw(t, "entries"); i > 0; i-- {
		b.WriteString(s.entry(t) + "\n")
	}
	return []byte(b.String())
}

func appendBytes(t *rapid.T, path string, b []byte) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// TestIndex_RefreshEqualsCleanBuild is the rule for incremental refresh
// (docs/indexing.md "Keeping the index current"): whatever happens to the files —
// entries appended one by one, torn tails and their completion, bad lines,
// blank lines, a second header, rewrites in place and by rename,
// truncation, deletion, new files of both dialects and every pi version — a
// refreshed index equals, in a canonical dump, a clean index of the same
// files.
//
// Each case costs a few indexes of small files, so unless -rapid.checks is
// given it runs 40 cases rather than rapid's 100.
func TestIndex_RefreshEqualsCleanBuild(t *testing.T) {
	testutil.RapidChecks(t, 10, 40)
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "grove-refresh-*")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		root := filepath.Join(dir, "sessions")
		os.MkdirAll(root, 0o755)
		a, err := ingest.Open(ctx, filepath.Join(dir, "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		whole, err := ingest.Open(ctx, filepath.Join(dir, "whole.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer whole.Close()
		var files []*sim
		newFile := func() {
			s := &sim{path: filepath.Join(root, fmt.Sprintf("f%d.jsonl", len(files))), plain: rapid.Bool().Draw(t, "plain")}
			if err := os.WriteFile(s.path, s.content(t), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, s)
		}
		newFile()
		steps := rapid.IntRange(1, 10).Draw(t, "steps")
		for step := 0; step < steps; step++ {
			s := rapid.SampledFrom(files).Draw(t, "file")
			if _, err := os.Stat(s.path); err != nil {
				os.WriteFile(s.path, s.content(t), 0o644)
			}
			switch op := rapid.SampledFrom([]string{"entry", "entry", "entry", "entries", "torn", "finish", "bad", "blank",
				"header", "rewrite", "replace", "truncate", "delete", "new", "touch"}).Draw(t, "op"); op {
			case "entry":
				appendBytes(t, s.path, []byte(s.entry(t)+"\n"))
			case "entries":
				var b strings.Builder
				for i := rapid.IntRange(2, 5).Draw(t, "n"); i > 0; i-- {
					b.WriteString(s.entry(t) + "\n")
				}
				appendBytes(t, s.path, []byte(b.String()))
			case "torn":
				line := s.entry(t)
				appendBytes(t, s.path, []byte(line[:rapid.IntRange(1, len(line)-1).Draw(t, "cut")]))
			case "finish":
				appendBytes(t, s.path, []byte("\n"))
			case "bad":
				appendBytes(t, s.path, []byte(rapid.SampledFrom([]string{`{"type":"message"`, "not json", `{"id":1}`, "[]"}).Draw(t, "badLine")+"\n"))
			case "blank":
				appendBytes(t, s.path, []byte(rapid.SampledFrom([]string{"\n", "  \n", "\r\n"}).Draw(t, "blankLine")))
			case "header":
				appendBytes(t, s.path, []byte(s.header(t)))
			case "rewrite": // in place: same inode (pi migrating a file)
				if err := os.WriteFile(s.path, s.content(t), 0o644); err != nil {
					t.Fatal(err)
				}
			case "replace": // a new file renamed over the old one
				tmp := s.path + ".tmp"
				os.WriteFile(tmp, s.content(t), 0o644)
				if err := os.Rename(tmp, s.path); err != nil {
					t.Fatal(err)
				}
			case "truncate":
				fi, _ := os.Stat(s.path)
				if fi.Size() > 0 {
					os.Truncate(s.path, rapid.Int64Range(0, fi.Size()-1).Draw(t, "size"))
				}
				s.ids, s.n = nil, 0 // ids may come back: fine, they are new lines
			case "delete":
				os.Remove(s.path)
			case "new":
				newFile()
			case "touch":
				at := time.Now().Add(time.Duration(rapid.IntRange(-10, 10).Draw(t, "secs")) * time.Second)
				os.Chtimes(s.path, at, at)
			}
			if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
				t.Fatalf("step %d: refresh: %v", step, err)
			}
			// After every step, against a second index that reads every
			// file whole (cheap); at the end, against a new index.
			if _, err := whole.Index(ctx, ingest.IndexOptions{Roots: []string{root}, Force: true}); err != nil {
				t.Fatalf("step %d: forced index: %v", step, err)
			}
			if got, want := dumpOf(t, a), dumpOf(t, whole); got != want {
				t.Fatalf("step %d: the refreshed index differs from one that read every file whole\n%s", step, testutil.FirstDiff(got, want))
			}
		}
		if got, want := dumpOf(t, a), cleanDump(t, root, filepath.Join(dir, "clean.db")); got != want {
			t.Fatalf("the refreshed index differs from a clean build\n%s", testutil.FirstDiff(got, want))
		}
	})
}

// TestIndex_AppendReadsOnlyTheTail: after an append, a refresh reads about
// the appended bytes plus fixed-size fingerprints, the same for a small and
// a large file (docs/indexing.md "Keeping the index current": bytes read must not
// grow with the file's size).
func TestIndex_AppendReadsOnlyTheTail(t *testing.T) {
	ctx := context.Background()
	read := map[int]int64{}
	for _, n := range []int{100, 5000} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		var b strings.Builder
		b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
		parent := "null"
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `{"type":"message","id":"e%d","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"line %d of a long session"}}`+"\n", i, parent, i)
			parent = fmt.Sprintf("%q", fmt.Sprintf("e%d", i))
		}
		os.WriteFile(path, []byte(b.String()), 0o644)
		a := mustOpen(t, filepath.Join(dir, "index.db"))
		if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}}); err != nil {
			t.Fatal(err)
		}
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		fmt.Fprintf(f, `{"type":"message","id":"new","parentId":%s,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"%s"}}`+"\n", parent, strings.Repeat("x", 900))
		f.Close()
		sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}})
		if err != nil || sum.Appended != 1 || sum.Entries != 1 {
			t.Fatalf("%d entries: refresh after an append = %+v, %v; want 1 file appended, 1 entry", n, sum, err)
		}
		read[n] = sum.BytesRead
		leaves, err := leavesOf(ctx, a, "s")
		if err != nil || len(leaves) != 1 || leaves[0].EntryID != "new" || !leaves[0].Active {
			t.Fatalf("%d entries: leaves after the append = %+v, %v; want the new entry, active", n, leaves, err)
		}
	}
	if d := read[5000] - read[100]; d < -64 || d > 64 || read[100] > 16<<10 {
		t.Fatalf("bytes read after a ~1 KB append: %d for a file of 100 entries, %d for 5,000; want the same (but for the lines' lengths), ≤ 16 KiB", read[100], read[5000])
	}
}

// An edit in place that keeps the file's size (same inode, new mtime) is
// read whole: the fingerprints of the first and last bytes cannot see the
// middle. And a file first read within the racy window is checked by its
// bytes once more, then trusted by its stat again.
func TestIndex_SameSizeEditAndRacyFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"e%03d","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"plain words %03d"}}`+"\n",
			i, map[bool]string{true: "null", false: fmt.Sprintf(`"e%03d"`, i-1)}[i == 0], i)
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	a := mustOpen(t, filepath.Join(dir, "index.db"))
	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	// Same size, same inode: "words 150" becomes "zebra 150" in the middle.
	data, _ := os.ReadFile(path)
	i := strings.Index(string(data), "plain words 150")
	f, _ := os.OpenFile(path, os.O_WRONLY, 0)
	f.WriteAt([]byte("plain zebra"), int64(i))
	f.Close()
	later := old.Add(time.Minute)
	os.Chtimes(path, later, later)
	sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}})
	if err != nil || sum.Indexed != 1 || sum.Appended != 0 {
		t.Fatalf("refresh after a same-size edit = %+v, %v; want the file read whole", sum, err)
	}
	res, err := search(ctx, a, "zebra", 0)
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("search zebra after the edit: %d hits, %v; want 1", len(res.Hits), err)
	}

	// Racy: its mtime is later than the moment it is read (a clock a little
	// ahead, or a write as the read starts), however slowly this machine
	// runs the read, so its stat is not trusted.
	racyAt := time.Now().Add(300 * time.Millisecond)
	os.Chtimes(path, racyAt, racyAt)
	if sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}}); err != nil || sum.Indexed != 1 {
		t.Fatalf("refresh after a touch = %+v, %v; want the file read whole", sum, err)
	}
	time.Sleep(time.Until(racyAt.Add(index.RacyWindowMs*time.Millisecond + 100*time.Millisecond))) // now the mtime is over 2 s old
	sum, err = a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}})
	if err != nil || sum.Unchanged != 1 || sum.BytesRead == 0 {
		t.Fatalf("refresh of a racily clean file = %+v, %v; want it unchanged, its fingerprints read", sum, err)
	}
	sum, err = a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}})
	if err != nil || sum.Unchanged != 1 || sum.BytesRead != 0 {
		t.Fatalf("the refresh after = %+v, %v; want unchanged by its stat alone, 0 bytes read", sum, err)
	}
}
