package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// Append takes its input line by line: each good line is appended in
// order, a bad one fails alone with its input line number, blank lines
// are skipped, and the outcome is the document grove append --json
// prints (SPEC §5, §8 `append`).
func TestAppend_Outcome(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	in := `{"id":"a","parentId":null,"timestamp":1700000000000,"type":"message","message":{"role":"user","content":"hi"}}` + "\n" +
		"not json\n" +
		"\n" +
		`{"id":"b","parentId":"a","timestamp":1700000000001,"type":"message","message":{"role":"user","content":"more"}}` + "\n"
	out, err := archive.Append(ctx, path, strings.NewReader(in), archive.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(out)
	if want := `{"appended":["a","b"],"failed":[{"line":2,"code":"invalid_entry","message":"invalid JSON: `; !strings.HasPrefix(string(doc), want) || out.Whole() {
		t.Errorf("Append = %s (whole %t), want it to start %s and not be whole", doc, out.Whole(), want)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(in, "not json\n\n", "", 1); !bytes.Equal(got, []byte(want)) {
		t.Errorf("file = %q, want %q", got, want)
	}
}

// A file Append created but appended nothing to is not left behind.
func TestAppend_NothingLeftBehind(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "new.jsonl")
	out, err := archive.Append(context.Background(), empty, strings.NewReader("not json\n"), archive.AppendOptions{})
	if err != nil || len(out.Failed) != 1 {
		t.Fatalf("Append(new file, a bad line) = %+v, %v", out, err)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("Append left %s behind with nothing appended (stat: %v)", empty, err)
	}
}
