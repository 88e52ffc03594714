package jsonl

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

func msg(id string, parent any, text string) map[string]any {
	return map[string]any{"id": id, "parentId": parent, "timestamp": 1767225600000, "type": "message",
		"message": map[string]any{"role": "user", "content": text}}
}

// faultFile is the I/O boundary with faults injected: it counts writes and
// can fail one before any byte, after part of it, or block it.
type faultFile struct {
	File
	mu      sync.Mutex
	writes  int
	failAt  int   // the write number (1-based) that fails; 0 = none
	partial int   // bytes actually written by the failing write
	err     error // the failing write's error
	gate    chan struct{}
}

func (f *faultFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	f.writes++
	n := f.writes
	f.mu.Unlock()
	if f.gate != nil {
		<-f.gate
	}
	if n == f.failAt {
		k, _ := f.File.Write(p[:f.partial])
		return k, f.err
	}
	return f.File.Write(p)
}

func (f *faultFile) Stat() (os.FileInfo, error) { return f.File.Stat() }

func (f *faultFile) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

func openFaulty(t *testing.T, path string, ff *faultFile) *Writer {
	t.Helper()
	w, err := OpenWriter(path, WriterOptions{WrapFile: func(f File) File { ff.File = f; return ff }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func mustOpenWriter(t *testing.T, path string) *Writer {
	t.Helper()
	w, err := OpenWriter(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// stores runs a test against both stores of the append contract.
func stores(t *testing.T, test func(t *testing.T, appendAsync func(any) *Pending, entries func() ([]Entry, error))) {
	t.Run("MemStore", func(t *testing.T) {
		s := NewMemStore()
		defer s.Close()
		test(t, s.AppendAsync, func() ([]Entry, error) { return s.Entries(context.Background()) })
	})
	t.Run("Writer", func(t *testing.T) {
		w := mustOpenWriter(t, filepath.Join(t.TempDir(), "s.jsonl"))
		test(t, w.AppendAsync, func() ([]Entry, error) { return w.Entries(context.Background()) })
	})
}

func entryIDs(es []Entry) string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return strings.Join(out, " ")
}

// The chapter: the store keeps what append was given at the moment of the
// call, not what the caller changed afterwards.
func TestStore_SnapshotAtCall(t *testing.T) {
	stores(t, func(t *testing.T, appendAsync func(any) *Pending, entries func() ([]Entry, error)) {
		u1 := msg("u-1", nil, "读取 README.md")
		p := appendAsync(u1)
		u1["message"].(map[string]any)["content"] = "changed"
		u1["id"] = "other"
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		es, _ := entries()
		if len(es) != 1 || es[0].ID != "u-1" || !bytes.Contains(es[0].Raw, []byte("读取 README.md")) {
			t.Fatalf("entries = %s, want u-1 as it was at the call", es[0].Raw)
		}
	})
}

// The chapter: a child issued right after its parent, without waiting,
// commits after it.
func TestStore_ParentThenChildWithoutWaiting(t *testing.T) {
	stores(t, func(t *testing.T, appendAsync func(any) *Pending, entries func() ([]Entry, error)) {
		var ps []*Pending
		parent := any(nil)
		for _, id := range []string{"a", "b", "c", "d"} {
			ps = append(ps, appendAsync(msg(id, parent, id)))
			parent = id
		}
		for _, p := range ps {
			if err := p.Wait(); err != nil {
				t.Fatalf("append %s: %v", p.ID, err)
			}
		}
		if es, _ := entries(); entryIDs(es) != "a b c d" {
			t.Fatalf("entries = %s, want a b c d", entryIDs(es))
		}
	})
}

// The chapter: one failed append fails alone; the queue goes on.
func TestStore_FailureDoesNotPoisonQueue(t *testing.T) {
	stores(t, func(t *testing.T, appendAsync func(any) *Pending, entries func() ([]Entry, error)) {
		p1 := appendAsync(msg("x", "missing", "orphan"))
		p2 := appendAsync(msg("r", nil, "root"))
		p3 := appendAsync(msg("r", nil, "again"))
		p4 := appendAsync(map[string]any{"id": "bad"})
		p5 := appendAsync(msg("s", "r", "child"))
		if errs.CodeOf(p1.Wait()) != errs.CodeMissingParent || p2.Wait() != nil || errs.CodeOf(p3.Wait()) != errs.CodeDuplicateID ||
			errs.CodeOf(p4.Wait()) != errs.CodeInvalidEntry || p5.Wait() != nil {
			t.Fatalf("results %v %v %v %v %v, want missing_parent, ok, duplicate_id, invalid_entry, ok", p1.Wait(), p2.Wait(), p3.Wait(), p4.Wait(), p5.Wait())
		}
		if es, _ := entries(); entryIDs(es) != "r s" {
			t.Fatalf("entries = %s, want r s", entryIDs(es))
		}
	})
}

// The chapter: a read waits for the appends queued before it and returns
// copies that share nothing with the store.
func TestStore_ReadsWaitAndCopy(t *testing.T) {
	stores(t, func(t *testing.T, appendAsync func(any) *Pending, entries func() ([]Entry, error)) {
		parent := any(nil)
		for i := 0; i < 200; i++ {
			id := string(rune('A'+i%26)) + strings.Repeat("x", i/26)
			appendAsync(msg(id, parent, id))
			parent = id
		}
		es, err := entries()
		if err != nil || len(es) != 200 {
			t.Fatalf("entries = %d, %v; want all 200 queued before the read", len(es), err)
		}
		for i := range es[0].Raw {
			es[0].Raw[i] = '!'
		}
		again, _ := entries()
		if bytes.Contains(again[0].Raw, []byte("!!")) {
			t.Fatalf("changing a read's result changed the store")
		}
	})
}

// SPEC §5: a file with an unterminated tail opens needs-repair: reads give
// the committed prefix, appends are refused without touching the file.
func TestWriter_NeedsRepairRefusesWithoutIO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "torn.jsonl")
	data, _ := os.ReadFile(filepath.Join("..", "testdata", "cases", "01-unterminated-tail.jsonl"))
	os.WriteFile(path, data, 0o600)
	ff := &faultFile{}
	w := openFaulty(t, path, ff)
	if w.State() != NeedsRepair {
		t.Fatalf("state = %s, want needs-repair", w.State())
	}
	err := w.Append(map[string]any{"type": "message", "id": "e03", "parentId": "e02", "timestamp": "2026-01-01T00:00:03Z", "message": map[string]any{"role": "user", "content": "x"}})
	if errs.CodeOf(err) != errs.CodeNeedsRepair || ff.count() != 0 {
		t.Fatalf("append = %v after %d writes, want needs_repair and no write", err, ff.count())
	}
	es, err := w.Entries(context.Background())
	if err != nil || entryIDs(es) != "e01 e02" {
		t.Fatalf("entries = %q, %v; want the committed prefix e01 e02", entryIDs(es), err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Fatal("the file changed")
	}
}

// SPEC §5: a failed write taints the writer. Later appends fail with the
// very same error without I/O, reads fail with it, appends already queued
// fail with it, and opening the file again starts from what is on disk.
func TestWriter_TaintedStopsIO(t *testing.T) {
	for _, tc := range []struct {
		name    string
		partial int
		err     error
	}{
		{"before any byte", 0, syscall.EIO},
		{"after part of a line", 25, syscall.EIO},
		{"ENOSPC part-way", 40, syscall.ENOSPC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			ff := &faultFile{failAt: 2, partial: tc.partial, err: tc.err, gate: make(chan struct{})}
			w := openFaulty(t, path, ff)
			p1 := w.AppendAsync(msg("a", nil, "one"))
			p2 := w.AppendAsync(msg("b", "a", "two")) // fails in the write
			p3 := w.AppendAsync(msg("c", "b", "queued behind the failure"))
			p4 := w.AppendAsync(msg("d", nil, "queued too"))
			close(ff.gate)
			if err := p1.Wait(); err != nil {
				t.Fatal(err)
			}
			first := p2.Wait()
			if errs.CodeOf(first) != errs.CodeTainted || !errors.Is(first, tc.err) {
				t.Fatalf("failing append = %v, want tainted wrapping %v", first, tc.err)
			}
			if p3.Wait() != first || p4.Wait() != first {
				t.Fatalf("queued appends = %v / %v, want the same error value %p", p3.Wait(), p4.Wait(), first)
			}
			writes := ff.count()
			if err := w.Append(msg("e", nil, "later")); err != first || ff.count() != writes {
				t.Fatalf("later append = %v after %d more writes, want the same error and no I/O", err, ff.count()-writes)
			}
			if _, err := w.Entries(context.Background()); err != first {
				t.Fatalf("read = %v, want the taint error", err)
			}
			w.Close()
			// Reopening starts from the disk: a torn line is a tail.
			w2, err := OpenWriter(path, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w2.Close()
			want := Ready
			if tc.partial > 0 {
				want = NeedsRepair
			}
			if w2.State() != want {
				t.Fatalf("reopened state = %s, want %s", w2.State(), want)
			}
			if es, _ := w2.Entries(context.Background()); entryIDs(es) != "a" {
				t.Fatalf("reopened entries = %q, want a", entryIDs(es))
			}
		})
	}
}

// SPEC §5: after every successful append the old file is a byte prefix of
// the new one, and the file reads back strictly with the same entries.
func TestWriter_BytePrefixAndReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w := mustOpenWriter(t, path)
	var before []byte
	parent := any(nil)
	for i := 0; i < 50; i++ {
		id := "n" + string(rune('a'+i%26)) + strings.Repeat("z", i/26)
		if err := w.Append(msg(id, parent, strings.Repeat("é\"\\\n<>", i))); err != nil {
			t.Fatal(err)
		}
		parent = id
		after, _ := os.ReadFile(path)
		if !bytes.HasPrefix(after, before) || len(after) <= len(before) {
			t.Fatalf("append %d: the old file is not a prefix of the new one", i)
		}
		before = after
	}
	got, _ := w.Entries(context.Background())
	read, res, err := ReadFile(path, Strict)
	if err != nil || res.State() != StateOK || len(read) != len(got) {
		t.Fatalf("read back: %d entries, %v; want %d", len(read), err, len(got))
	}
	for i := range read {
		if !bytes.Equal(read[i].Raw, got[i].Raw) || read[i].Offset != got[i].Offset || read[i].Line != got[i].Line {
			t.Fatalf("entry %d: file %d@%d %s, writer %d@%d %s", i, read[i].Line, read[i].Offset, read[i].Raw, got[i].Line, got[i].Offset, got[i].Raw)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode = %v, want 0600", fi.Mode().Perm())
	}
}

// A new file takes the dialect of its first line; a pi file refuses a
// second header and plain entries.
func TestWriter_DialectFromFirstLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pi.jsonl")
	w := mustOpenWriter(t, path)
	header := map[string]any{"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
	entry := map[string]any{"type": "message", "id": "p1", "parentId": nil, "timestamp": "2026-01-01T00:00:01.000Z", "message": map[string]any{"role": "user", "content": "hi"}}
	if err := w.Append(header); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(entry); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(header); errs.CodeOf(err) != errs.CodeInvalidEntry || !strings.Contains(err.Error(), "extra_header") {
		t.Fatalf("second header = %v, want invalid_entry (extra_header)", err)
	}
	if err := w.Append(msg("plain", nil, "x")); errs.CodeOf(err) != errs.CodeInvalidEntry {
		t.Fatalf("plain entry in a pi file = %v, want invalid_entry", err)
	}
	noTime := map[string]any{"type": "message", "id": "p2", "parentId": "p1", "message": map[string]any{"role": "user", "content": "hi"}}
	if err := w.Append(noTime); errs.CodeOf(err) != errs.CodeInvalidEntry || !strings.Contains(err.Error(), "timestamp") {
		t.Fatalf("entry without timestamp = %v, want invalid_entry naming timestamp", err)
	}
	_, res, err := ReadFile(path, Strict)
	if err != nil || res.Dialect != Pi || res.Header.ID != "s-1" || res.Entries != 1 {
		t.Fatalf("read back = %+v, %v; want a pi file with one entry", res, err)
	}
}

// A whitespace-only tail (case 01b) is not torn: the writer stays ready and
// ends that line before its own, so the new entry starts a line.
func TestWriter_BlankTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blank.jsonl")
	data, _ := os.ReadFile(filepath.Join("..", "testdata", "cases", "01b-whitespace-tail.jsonl"))
	os.WriteFile(path, data, 0o600)
	w := mustOpenWriter(t, path)
	e := map[string]any{"type": "message", "id": "e03", "parentId": "e02", "timestamp": "2026-01-01T00:00:03.000Z", "message": map[string]any{"role": "user", "content": "x"}}
	if w.State() != Ready || w.Append(e) != nil {
		t.Fatalf("state %s; want ready and the append to work", w.State())
	}
	got, _ := w.Entries(context.Background())
	read, _, err := ReadFile(path, Strict)
	if err != nil || len(read) != 3 || read[2].Line != 5 || read[2].Offset != got[2].Offset {
		t.Fatalf("read back %d entries (%v), last at line %d byte %d; writer said byte %d", len(read), err, read[len(read)-1].Line, read[len(read)-1].Offset, got[2].Offset)
	}
}

// Opening replays the tree rules: a duplicate id or a parent that is not on
// an earlier line makes the file impossible to append to, naming the line.
func TestOpenWriter_ReplaysTreeRules(t *testing.T) {
	for _, tc := range []struct {
		file string
		code errs.Code
		line int
	}{
		{"07-missing-parent.jsonl", errs.CodeMissingParent, 5},
		{"09-parent-cycle.jsonl", errs.CodeMissingParent, 3},
		{"02-fused-line.jsonl", errs.CodeBadLine, 4},
	} {
		_, err := OpenWriter(filepath.Join("..", "testdata", "cases", tc.file), WriterOptions{})
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != tc.code || e.Line != tc.line {
			t.Errorf("OpenWriter(%s) = %v, want %s at line %d", tc.file, err, tc.code, tc.line)
		}
	}
}
