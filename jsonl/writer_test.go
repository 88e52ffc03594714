package jsonl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
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

// SPEC §5 validation: each rejection is invalid_entry naming the field path.
func TestMarshalEntry_Rejections(t *testing.T) {
	cyc := map[string]any{"id": "c"}
	cyc["self"] = cyc
	sl := []any{1}
	sl[0] = sl
	args := func(v any) map[string]any {
		return map[string]any{"id": "a", "parentId": nil, "timestamp": 1, "type": "message", "message": map[string]any{
			"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": "c1", "name": "read", "arguments": map[string]any{"path": v}}}}}
	}
	tests := []struct {
		name  string
		v     any
		field string
	}{
		{"NaN", args(math.NaN()), "message.content[0].arguments.path"},
		{"+Inf", args(math.Inf(1)), "message.content[0].arguments.path"},
		{"invalid UTF-8 string", args("\xff"), "message.content[0].arguments.path"},
		{"invalid UTF-8 key", map[string]any{"id": "a", "k\xffey": 1}, "(entry)"},
		{"map cycle", cyc, "self"},
		{"slice cycle", map[string]any{"list": sl}, "list[0]"},
		{"channel", args(make(chan int)), "message.content[0].arguments.path"},
		{"func", map[string]any{"f": func() {}}, "f"},
		{"struct", map[string]any{"s": struct{ A int }{1}}, "s"},
		{"int beyond 2^53", args(int64(1) << 53), "message.content[0].arguments.path"},
		{"uint beyond 2^53", args(uint64(1) << 60), "message.content[0].arguments.path"},
		{"non-string keys", map[string]any{"m": map[int]string{1: "x"}}, "m"},
		{"raw big integer", []byte(`{"id":"a","n":[1,12345678901234567890]}`), "n[1]"},
		{"raw invalid UTF-8", []byte("{\"id\":\"\xff\"}"), ""},
		{"raw 1e999", []byte(`{"id":"a","usage":{"cost":1e999}}`), "usage.cost"},
		{"raw integer-valued float beyond 2^53", []byte(`{"id":"a","n":9007199254740993.0}`), "n"},
		{"raw exponent beyond 2^53", []byte(`{"id":"a","n":9.007199254740993e15}`), "n"},
		{"raw digits a float64 drops", []byte(`{"id":"a","x":0.12345678901234567890123}`), "x"},
		{"raw lone surrogate", []byte(`{"id":"a","s":["ok","\ud800"]}`), "s[1]"},
		{"raw lone low surrogate", []byte(`{"id":"a","s":"\udc00x"}`), "s"},
		{"raw duplicate key", []byte(`{"id":"a","m":{"k":1,"k":2}}`), "m.k"},
		{"raw duplicate id", []byte(`{"id":"a","id":"b"}`), "id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MarshalEntry(tt.v)
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.CodeInvalidEntry || e.ID != tt.field {
				t.Fatalf("MarshalEntry = %v (field %q), want invalid_entry at %q", err, e.ID, tt.field)
			}
		})
	}
	// What is accepted reads back unchanged: a surrogate pair, 1.50, 1e20,
	// 2^53−1 and 0.1 are all kept.
	if _, err := MarshalEntry([]byte(`{"id":"a","s":"\ud83c\udf33","n":[1.50,1e20,9007199254740991,-9007199254740991,0.1]}`)); err != nil {
		t.Fatalf("MarshalEntry(valid raw) = %v", err)
	}
	// What is accepted reads back unchanged.
	ok := args(int64(1)<<53 - 1)
	b, err := MarshalEntry(ok)
	if err != nil || !bytes.Contains(b, []byte("9007199254740991")) {
		t.Fatalf("MarshalEntry(2^53-1) = %s, %v", b, err)
	}
}

// Missing or mistyped required fields of the file's dialect are refused at
// call time with the field path.
func TestWriter_DialectValidation(t *testing.T) {
	w := mustOpenWriter(t, filepath.Join(t.TempDir(), "s.jsonl"))
	bad := map[string]any{"id": "a", "parentId": nil, "timestamp": 1, "type": "message", "message": map[string]any{
		"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": "c1", "name": "read", "arguments": "README.md"}}}}
	err := w.Append(bad)
	if errs.CodeOf(err) != errs.CodeInvalidEntry || !strings.Contains(err.Error(), "message.content[0].arguments: is a string, want an object") {
		t.Fatalf("append = %v, want invalid_entry naming message.content[0].arguments", err)
	}
}

// A process that ignores the lock (an agent writing the file itself) leaves
// a partial line: the writer must not fuse its line onto it (case 02).
func TestWriter_ForeignBytesStopTheWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w := mustOpenWriter(t, path)
	if err := w.Append(msg("r", nil, "root")); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"id":"foreign","parentId":"r"`)
	f.Close()
	before, _ := os.ReadFile(path)
	err := w.Append(msg("a", "r", "mine"))
	if errs.CodeOf(err) != errs.CodeTainted || !strings.Contains(err.Error(), "another process") {
		t.Fatalf("append after foreign bytes = %v, want tainted naming another process", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatalf("the writer wrote after the foreign partial line:\n%s", after)
	}
}

// In a pi file the writer holds user, assistant and toolResult messages to
// pi's own shapes, which every message of the real corpus session has.
func TestWriter_PiMessageShapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pi.jsonl")
	w := mustOpenWriter(t, path)
	if err := w.Append([]byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ msg, field string }{
		{`{"role":"assistant","content":"notarray"}`, "message.content"},
		{`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"read","arguments":"{}"}]}`, "message.content[0].arguments"},
		{`{"role":"toolResult","toolCallId":5,"toolName":"read","isError":false,"content":[]}`, "message.toolCallId"},
	} {
		err := w.Append([]byte(`{"type":"message","id":"m","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":` + tc.msg + `}`))
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != errs.CodeInvalidEntry || e.ID != tc.field {
			t.Errorf("append %s = %v, want invalid_entry at %s", tc.msg, err, tc.field)
		}
	}
	// Roles pi adds (bashExecution, custom, ...) keep their own shapes.
	if err := w.Append([]byte(`{"type":"message","id":"b","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"bashExecution","command":"ls","output":"","exitCode":0}}`)); err != nil {
		t.Fatalf("bashExecution append = %v", err)
	}
	corpus := filepath.Join("..", "..", "shared", "corpus", "pi", "large-session.jsonl")
	entries, _, err := ReadFile(corpus, Salvage)
	if err != nil {
		t.Skipf("skipping the corpus half: %v (../shared is absent)", err)
	}
	n := 0
	for _, e := range entries {
		if e.Type == "message" && (e.Role == "user" || e.Role == "assistant" || e.Role == "toolResult") {
			n++
			if _, err := checkPlainMessage(Field(e.Raw, "message")); err != nil {
				t.Errorf("corpus line %d: the writer would refuse a real pi message: %v", e.Line, err)
			}
		}
	}
	if n < 900 {
		t.Fatalf("checked %d corpus messages, want the session's 914", n)
	}
}

// Field paths are built only for an error: a value nested 2,000 deep under
// 500-byte keys costs memory linear in its size (a path per level would
// take a gigabyte).
func TestMarshalEntry_DeepNestingIsLinear(t *testing.T) {
	key := strings.Repeat("k", 500)
	var v any = 1
	raw := "1"
	for i := 0; i < 2000; i++ {
		v = map[string]any{key: v}
		raw = `{"` + key + `":` + raw + `}`
	}
	for name, in := range map[string]any{"go value": map[string]any{"id": "a", "deep": v}, "raw": []byte(`{"id":"a","deep":` + raw + `}`)} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := MarshalEntry(in); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 300<<20 {
			t.Errorf("%s: MarshalEntry allocated %d MB for a 1 MB value", name, alloc>>20)
		}
	}
}

// CopyAsync copies committed history byte for byte (SPEC §5, forks): what
// Append refuses as new input — integers beyond 2^53, escaped lone
// surrogates, whitespace, a bad timestamp — is copied; what a reader calls
// a bad line, a line holding a LF and a broken tree are still refused.
func TestWriter_CopyAsyncKeepsCommittedBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fork.jsonl")
	w := mustOpenWriter(t, path)
	defer w.Close()
	lines := []string{
		`{"type":"session","version":3,"id":"f","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"cut \ud83d"}}`,
		`{"type":"compaction","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","summary":"s","tokensBefore":12345678901234567890}`,
		`{"type":"custom", "id":"c","parentId":"b","timestamp":"yesterday","customType":"x","data":{"n":-9007199254740993}}`,
	}
	for i, l := range lines {
		if err := w.CopyAsync([]byte(l)).Wait(); err != nil {
			t.Fatalf("CopyAsync(line %d): %v", i+1, err)
		}
	}
	// The same entries as new input (fresh ids) are refused, each for its reason.
	for i, why := range []string{"lone UTF-16 surrogate", "beyond ±(2^53−1)", "data.n"} {
		l := strings.Replace(lines[i+1], `"id":"`, `"id":"n`, 1)
		if err := w.Append(json.RawMessage(l)); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Append(%s) = %v, want invalid_entry naming %q: the writer's strictness is for new entries", l, err, why)
		}
	}
	for _, bad := range []string{
		`{"type":"message","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:03.000Z"}`,                  // no message: a bad line
		`{"type":"custom","id":"d","parentId":"zz","timestamp":"2026-01-01T00:00:03.000Z","customType":"x"}`, // missing parent
		"{\"type\":\"custom\",\"id\":\"d\",\"parentId\":\"c\",\n\"customType\":\"x\"}",                       // two lines
	} {
		if err := w.CopyAsync([]byte(bad)).Wait(); err == nil {
			t.Errorf("CopyAsync(%q) succeeded, want it refused", bad)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(lines, "\n") + "\n"; string(got) != want {
		t.Errorf("file =\n%s\nwant the copied lines byte for byte:\n%s", got, want)
	}
}
