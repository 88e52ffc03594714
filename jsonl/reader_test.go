package jsonl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

func read(t *testing.T, in string, mode Mode) ([]Entry, *Result, error) {
	t.Helper()
	var entries []Entry
	res, err := Read(strings.NewReader(in), Options{Path: "t.jsonl", Mode: mode, KeepRaw: true}, func(e Entry) error {
		entries = append(entries, e)
		return nil
	})
	return entries, res, err
}

const (
	plainUser = `{"id":"u","parentId":null,"timestamp":1,"type":"message","message":{"role":"user","content":"hi"}}`
	piHeader3 = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
)

// Every rule of the plain dialect (SPEC §3.1): the line is kept or it is a
// bad line whose message names the field.
func TestRead_PlainValidation(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		wantErr string // "" = the line is an entry
	}{
		{"user string", plainUser, ""},
		{"user blocks", `{"id":"u","parentId":null,"timestamp":1,"type":"message","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}}`, ""},
		{"assistant all blocks", `{"id":"a","parentId":"u","timestamp":1.5,"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"R"},"raw":"{}"}],"usage":{"input":1}}}`, ""},
		{"tool result", `{"id":"r","parentId":"a","timestamp":1,"type":"message","message":{"role":"toolResult","toolCallId":"c","toolName":"read","isError":false,"content":[{"type":"text","text":"x"}],"details":[1,2]}}`, ""},
		{"metadata any value", `{"id":"m","parentId":null,"timestamp":1,"type":"metadata","key":"k","value":{"a":[null]}}`, ""},
		{"metadata null value", `{"id":"m","parentId":null,"timestamp":1,"type":"metadata","key":"k","value":null}`, ""},
		{"no id", `{"parentId":null,"timestamp":1,"type":"metadata","key":"k","value":1}`, "id: missing"},
		{"empty id", `{"id":"","parentId":null,"timestamp":1,"type":"metadata","key":"k","value":1}`, "id: is empty"},
		{"numeric id", `{"id":7,"parentId":null,"timestamp":1,"type":"metadata","key":"k","value":1}`, "id: is a number"},
		{"no parentId", `{"id":"m","timestamp":1,"type":"metadata","key":"k","value":1}`, "parentId: missing"},
		{"parentId number", `{"id":"m","parentId":3,"timestamp":1,"type":"metadata","key":"k","value":1}`, "parentId: is a number"},
		{"timestamp string", `{"id":"m","parentId":null,"timestamp":"1","type":"metadata","key":"k","value":1}`, "timestamp: is a string"},
		{"timestamp beyond 2^53", `{"id":"m","parentId":null,"timestamp":9.3e18,"type":"metadata","key":"k","value":1}`, "outside"},
		{"timestamp overflow", `{"id":"m","parentId":null,"timestamp":1e999,"type":"metadata","key":"k","value":1}`, "timestamp"},
		{"unknown type", `{"id":"m","parentId":null,"timestamp":1,"type":"note"}`, `type: is "note"`},
		{"metadata empty key", `{"id":"m","parentId":null,"timestamp":1,"type":"metadata","key":"","value":1}`, "key: is empty"},
		{"metadata no value", `{"id":"m","parentId":null,"timestamp":1,"type":"metadata","key":"k"}`, "value: missing"},
		{"message not object", `{"id":"u","parentId":null,"timestamp":1,"type":"message","message":"hi"}`, "message: is a string"},
		{"unknown role", `{"id":"u","parentId":null,"timestamp":1,"type":"message","message":{"role":"system","content":"x"}}`, `message.role: is "system"`},
		{"user content number", `{"id":"u","parentId":null,"timestamp":1,"type":"message","message":{"role":"user","content":1}}`, "message.content: is a number"},
		{"assistant string content", `{"id":"a","parentId":null,"timestamp":1,"type":"message","message":{"role":"assistant","content":"x"}}`, "message.content: is a string"},
		{"toolCall args array", `{"id":"a","parentId":null,"timestamp":1,"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":[]}]}}`, "message.content[0].arguments: is an array"},
		{"toolCall no id", `{"id":"a","parentId":null,"timestamp":1,"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","name":"n","arguments":{}}]}}`, "message.content[1].id: missing"},
		{"thinking in user", `{"id":"u","parentId":null,"timestamp":1,"type":"message","message":{"role":"user","content":[{"type":"thinking","thinking":"x"}]}}`, "message.content[0].type"},
		{"toolResult isError string", `{"id":"r","parentId":null,"timestamp":1,"type":"message","message":{"role":"toolResult","toolCallId":"c","toolName":"n","isError":"no","content":[]}}`, "message.isError: is a string"},
		{"toolResult no toolName", `{"id":"r","parentId":null,"timestamp":1,"type":"message","message":{"role":"toolResult","toolCallId":"c","isError":false,"content":[]}}`, "message.toolName: missing"},
		{"array line", `[1,2]`, "want an object"},
		{"null line", `null`, "want an object"},
		{"trailing comma", `{"id":"u",}`, "invalid JSON"},
		{"two objects", plainUser + plainUser, "invalid JSON"},
		{"NaN", `{"id":"m","parentId":null,"timestamp":NaN,"type":"metadata","key":"k","value":1}`, "invalid JSON"},
		{"NUL in string", "{\"id\":\"m\x00\"}", "NUL byte"},
		{"invalid UTF-8", "{\"id\":\"\xff\"}", "invalid UTF-8 at byte column 8"},
		{"BOM inside the line", `{"id":"m",` + "\xEF\xBB\xBF" + `"parentId":null}`, "byte order mark at byte column 11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, res, err := read(t, tt.line+"\n", Salvage)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if tt.wantErr == "" {
				if len(res.Errors) != 0 || len(entries) != 1 {
					t.Fatalf("Read(%s) = %d entries, errors %v; want one entry", tt.line, len(entries), res.Errors)
				}
				if string(entries[0].Raw) != tt.line {
					t.Errorf("Raw = %s, want the line byte for byte", entries[0].Raw)
				}
				return
			}
			if len(res.Errors) != 1 || len(entries) != 0 {
				t.Fatalf("Read(%s) = %d entries, errors %v; want one bad line", tt.line, len(entries), res.Errors)
			}
			e := res.Errors[0]
			if e.Code != errs.CodeBadLine || e.Line != 1 || e.Offset != 0 || !strings.Contains(e.Message, tt.wantErr) {
				t.Errorf("error = %+v, want bad_line at line 1 offset 0 containing %q", e, tt.wantErr)
			}
		})
	}
}

func TestRead_PiDialect(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantIDs   []string // id<-parent ("" parent = root)
		wantWarn  []errs.Code
		wantBad   []int
		wantVer   int
		wantTitle bool
	}{
		{
			name:    "v3 known and unknown types",
			in:      piHeader3 + "\n" + `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"x"}}` + "\n" + `{"type":"future","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.5Z"}` + "\n",
			wantIDs: []string{"a<-", "b<-a"}, wantVer: 3,
		},
		{
			name:    "v1 synthetic ids",
			in:      `{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n\n" + `{"type":"message","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"x"}}` + "\n" + `{"type":"thinking_level_change","timestamp":"2026-01-01T00:00:01Z","thinkingLevel":"high"}` + "\n",
			wantIDs: []string{"L3<-", "L4<-L3"}, wantVer: 1,
		},
		{
			name:     "extra header and bad timestamp",
			in:       piHeader3 + "\n" + piHeader3 + "\n" + `{"type":"custom","id":"a","parentId":null,"customType":"x"}` + "\n",
			wantIDs:  []string{"a<-"},
			wantWarn: []errs.Code{errs.CodeExtraHeader, errs.CodeBadTimestamp}, wantVer: 3,
		},
		{
			name:     "unknown version",
			in:       `{"type":"session","version":4,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n",
			wantWarn: []errs.Code{errs.CodeUnknownVersion}, wantVer: 4,
		},
		{
			name:    "missing id, missing parentId, message without message",
			in:      piHeader3 + "\n" + `{"type":"custom","parentId":null,"timestamp":"2026-01-01T00:00:00Z","customType":"x"}` + "\n" + `{"type":"custom","id":"a","timestamp":"2026-01-01T00:00:00Z","customType":"x"}` + "\n" + `{"type":"message","id":"b","parentId":null,"timestamp":"2026-01-01T00:00:00Z"}` + "\n" + `{"type":"label","id":"c","parentId":null,"timestamp":"2026-01-01T00:00:00Z"}` + "\n",
			wantBad: []int{2, 3, 4, 5}, wantVer: 3,
		},
		{
			// pi writes a compaction without firstKeptEntryId when it migrates
			// a v1 one whose index names no entry (SPEC §3.2); it is valid.
			name:    "compaction without or with null firstKeptEntryId; a number is bad",
			in:      piHeader3 + "\n" + `{"type":"compaction","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","summary":"s","tokensBefore":1}` + "\n" + `{"type":"compaction","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00Z","summary":"s","firstKeptEntryId":null}` + "\n" + `{"type":"compaction","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:00Z","summary":"s","firstKeptEntryId":3}` + "\n",
			wantIDs: []string{"a<-", "b<-a"}, wantBad: []int{4}, wantVer: 3,
		},
		{
			name:    "oh-my-pi title line",
			in:      `{"type":"title","v":1,"title":"t"}   ` + "\n" + piHeader3 + "\n" + `{"type":"label","id":"l","parentId":null,"timestamp":"2026-01-01T00:00:00Z","targetId":"x"}` + "\n",
			wantIDs: []string{"l<-"}, wantVer: 3, wantTitle: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, res, err := read(t, tt.in, Salvage)
			if err != nil {
				t.Fatal(err)
			}
			if res.Dialect != Pi || res.Header == nil || res.Header.Version != tt.wantVer {
				t.Fatalf("dialect %s header %+v, want pi version %d", res.Dialect, res.Header, tt.wantVer)
			}
			var ids []string
			for _, e := range entries {
				p := e.ParentID
				if e.Root {
					p = ""
				}
				ids = append(ids, e.ID+"<-"+p)
			}
			if strings.Join(ids, " ") != strings.Join(tt.wantIDs, " ") {
				t.Errorf("entries = %v, want %v", ids, tt.wantIDs)
			}
			var warn []errs.Code
			for _, w := range res.Warnings {
				warn = append(warn, w.Code)
			}
			if len(warn) != len(tt.wantWarn) {
				t.Errorf("warnings = %v, want %v", warn, tt.wantWarn)
			}
			for i := range warn {
				if i < len(tt.wantWarn) && warn[i] != tt.wantWarn[i] {
					t.Errorf("warning %d = %s, want %s", i, warn[i], tt.wantWarn[i])
				}
			}
			var bad []int
			for _, e := range res.Errors {
				bad = append(bad, e.Line)
			}
			if len(bad) != len(tt.wantBad) {
				t.Errorf("bad lines = %v, want %v", bad, tt.wantBad)
			}
		})
	}
}

// Strict and salvage reading report the same line (SPEC §2.6).
func TestRead_StrictFailsOnFirstBadLine(t *testing.T) {
	in := plainUser + "\n\n{bad\n" + `{"x":1}` + "\n"
	_, res, err := read(t, in, Salvage)
	if err != nil || len(res.Errors) != 2 || res.Errors[0].Line != 3 || res.Errors[1].Line != 4 {
		t.Fatalf("salvage: err %v, errors %v; want bad lines 3 and 4", err, res.Errors)
	}
	_, _, err = read(t, in, Strict)
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.CodeBadLine || e.Line != 3 || e.Offset != int64(len(plainUser)+2) {
		t.Fatalf("strict: err = %v, want bad_line at line 3", err)
	}
}

func TestRead_TailAndState(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantState State
		wantLines int
		committed int64
	}{
		{"clean", plainUser + "\n", StateOK, 1, int64(len(plainUser) + 1)},
		{"whitespace tail", plainUser + "\n \t\r", StateOK, 1, int64(len(plainUser) + 1)},
		{"complete JSON tail is still a tail", plainUser + "\n" + plainUser, StateNeedsRepair, 1, int64(len(plainUser) + 1)},
		{"bad line wins over tail", plainUser + "\nnope\n{", StateDamaged, 2, int64(len(plainUser) + 6)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, res, err := read(t, tt.in, Salvage)
			if err != nil {
				t.Fatal(err)
			}
			if res.State() != tt.wantState || res.Lines != tt.wantLines || res.Committed != tt.committed || len(entries) != 1 {
				t.Errorf("state %s lines %d committed %d entries %d, want %s %d %d 1", res.State(), res.Lines, res.Committed, len(entries), tt.wantState, tt.wantLines, tt.committed)
			}
		})
	}
}

// A metadata value that is a string is kept for the plain workspace rule.
func TestRead_PlainMetadataValue(t *testing.T) {
	entries, _, _ := read(t, `{"id":"m","parentId":null,"timestamp":1,"type":"metadata","key":"cwd","value":"/w/x"}`+"\n", Salvage)
	if len(entries) != 1 || entries[0].Key != "cwd" || entries[0].Value != "/w/x" {
		t.Fatalf("entries = %+v, want key cwd value /w/x", entries)
	}
}

// A BOM is skipped at byte 0 only; on a later line it makes the line bad
// (SPEC §2.2).
func TestRead_BOMOnlyAtByteZero(t *testing.T) {
	entries, res, _ := read(t, "\xEF\xBB\xBF"+plainUser+"\n\xEF\xBB\xBF"+plainUser+"\n", Salvage)
	if len(entries) != 1 || entries[0].Offset != 3 || len(res.Errors) != 1 || res.Errors[0].Line != 2 {
		t.Fatalf("entries %d (offset %d), errors %v; want 1 entry at byte 3 and a bad line 2", len(entries), entries[0].Offset, res.Errors)
	}
}

// ReadOpen (tail found from the end of the file) and Read (tail found by
// streaming) report the same things for every fixture and tail shape.
func TestReadOpen_AgreesWithRead(t *testing.T) {
	inputs := map[string]string{
		"no tail":          plainUser + "\n",
		"tail":             plainUser + "\n" + `{"id":"x"`,
		"blank tail":       plainUser + "\n \r\t",
		"only tail":        plainUser,
		"BOM only":         "\xEF\xBB\xBF",
		"BOM and tail":     "\xEF\xBB\xBF{",
		"BOM and blank":    "\xEF\xBB\xBF \n  ",
		"empty":            "",
		"long blank tail":  plainUser + "\n" + strings.Repeat(" ", 3*tailChunk+5),
		"long tail":        plainUser + "\n" + strings.Repeat("x", 2*tailChunk) + " ",
		"LF at chunk edge": strings.Repeat(" ", tailChunk-1) + "\n" + strings.Repeat("y", tailChunk),
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		inputs[f] = string(b)
	}
	dir := t.TempDir()
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, "f.jsonl")
			os.WriteFile(path, []byte(in), 0o644)
			_, want, werr := read(t, in, Salvage)
			_, got, gerr := ReadFile(path, Salvage)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("errors differ: Read %v, ReadFile %v", werr, gerr)
			}
			if got.Lines != want.Lines || got.Entries != want.Entries || got.Committed != want.Committed ||
				got.Size != want.Size || got.State() != want.State() || len(got.Errors) != len(want.Errors) {
				t.Fatalf("ReadFile = %+v, Read = %+v", got, want)
			}
			if len(got.Warnings) != len(want.Warnings) {
				t.Fatalf("warnings: ReadFile %v, Read %v", got.Warnings, want.Warnings)
			}
			for i := range got.Warnings {
				g, w := got.Warnings[i], want.Warnings[i]
				if g.Code != w.Code || g.Line != w.Line || g.Offset != w.Offset || g.Message != w.Message {
					t.Errorf("warning %d: ReadFile %v, Read %v", i, g, w)
				}
			}
		})
	}
}

// A huge unterminated tail is never read into memory (SPEC §2.5, §2.8).
func TestReadOpen_HugeTailStaysOnDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "torn.jsonl")
	f, _ := os.Create(path)
	f.WriteString(plainUser + "\n")
	f.Truncate(int64(len(plainUser)+1) + 64<<20) // a 64 MiB tail of NUL bytes
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, res, err := ReadFile(path, Salvage)
	runtime.ReadMemStats(&after)
	if err != nil || res.State() != StateNeedsRepair || res.Entries != 1 {
		t.Fatalf("ReadFile = %+v, %v; want one entry and a tail", res, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Fatalf("reading a 64 MiB tail allocated %d bytes, want under 4 MiB", alloc)
	}
}

// A FIFO (or any file that is not regular) is refused instead of read: it
// would block forever.
func TestReadFile_RefusesNonRegular(t *testing.T) {
	_, _, err := ReadFile(t.TempDir(), Salvage)
	if errs.CodeOf(err) != errs.CodeIO || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ReadFile(dir) = %v, want io_error: not a regular file", err)
	}
	_, _, err = ReadFile(filepath.Join(t.TempDir(), "missing.jsonl"), Salvage)
	if errs.CodeOf(err) != errs.CodeIO || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("ReadFile(missing) = %v, want io_error naming the reason", err)
	}
}

// recover reports every duplicated id like the index does: one error on
// the line of its second use, listing every line; strict mode fails on the
// first reuse.
func TestRecover_DuplicateIDs(t *testing.T) {
	m := func(id, parent string) string {
		return `{"id":"` + id + `","parentId":` + parent + `,"timestamp":1,"type":"metadata","key":"k","value":1}` + "\n"
	}
	in := m("a", "null") + m("b", `"a"`) + "bad\n" + m("a", `"b"`) + m("a", "null") + m("c", "null") + m("c", "null") + "bad\n" + m("b", "null")
	path := filepath.Join(t.TempDir(), "dup.jsonl")
	os.WriteFile(path, []byte(in), 0o644)
	res, err := Recover(path, Salvage)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		code  errs.Code
		line  int
		id    string
		lines string
	}
	wants := []want{{errs.CodeBadLine, 3, "", "[]"}, {errs.CodeDuplicateID, 4, "a", "[1 4 5]"}, {errs.CodeDuplicateID, 7, "c", "[6 7]"},
		{errs.CodeBadLine, 8, "", "[]"}, {errs.CodeDuplicateID, 9, "b", "[2 9]"}}
	if res.State() != StateDamaged || len(res.Errors) != len(wants) {
		t.Fatalf("Recover = state %s errors %v, want damaged with %d errors", res.State(), res.Errors, len(wants))
	}
	for i, w := range wants {
		e := res.Errors[i]
		if e.Code != w.code || e.Line != w.line || e.ID != w.id || fmt.Sprint(e.Lines) != w.lines && w.code == errs.CodeDuplicateID {
			t.Errorf("Errors[%d] = %s line %d id %q lines %v, want %s line %d id %q lines %s", i, e.Code, e.Line, e.ID, e.Lines, w.code, w.line, w.id, w.lines)
		}
	}
	if msg := res.Errors[1].Message; !strings.Contains(msg, `"a"`) || !strings.Contains(msg, "lines 1, 4, 5)") {
		t.Errorf("duplicate message = %q, want id a and lines 1, 4, 5", msg)
	}
	_, err = Recover(path, Strict)
	if errs.CodeOf(err) != errs.CodeBadLine {
		t.Fatalf("strict = %v, want the bad line 3 first", err)
	}
	os.WriteFile(path, []byte(m("a", "null")+m("a", "null")+"bad\n"), 0o644)
	if _, err = Recover(path, Strict); errs.CodeOf(err) != errs.CodeDuplicateID {
		t.Fatalf("strict = %v, want duplicate_id on line 2 before the bad line 3", err)
	}
}

// A message names at most ten lines of a duplicated id; Lines has all.
func TestDuplicateLinesError_Clips(t *testing.T) {
	var lines []int
	for l := 1; l <= 12; l++ {
		lines = append(lines, l)
	}
	e := DuplicateLinesError("x", lines)
	if len(e.Lines) != 12 || !strings.Contains(e.Message, "(lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more)") {
		t.Fatalf("DuplicateLinesError = %v %q, want 12 lines, the message naming ten and 2 more", e.Lines, e.Message)
	}
}

// NotRegular names the kind of file in words and keeps its permission
// bits, as ls shows them ("drwxr-x---" for a 0750 directory, never
// "d---------").
func TestNotRegular(t *testing.T) {
	for _, c := range []struct {
		mode fs.FileMode
		want string
	}{
		{fs.ModeDir | 0o750, "a directory (drwxr-x---)"},
		{fs.ModeNamedPipe | 0o640, "a FIFO (prw-r-----)"},
		{fs.ModeDevice | fs.ModeCharDevice | 0o666, "a character device (crw-rw-rw-)"},
		{fs.ModeDevice | 0o660, "a block device (brw-rw----)"},
		{fs.ModeSocket | 0o755, "a socket (srwxr-xr-x)"},
		{fs.ModeSymlink | 0o777, "a symbolic link (lrwxrwxrwx)"},
		{fs.ModeIrregular | 0o400, "a special file (?r--------)"},
	} {
		if got := NotRegular(c.mode); got != "not a regular file but "+c.want {
			t.Errorf("NotRegular(%v) = %q, want %q", c.mode, got, "not a regular file but "+c.want)
		}
	}
}
