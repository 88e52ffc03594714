package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// `grove export` as a person reads it: Markdown of pi paths against golden
// files in testdata/export (go test -run TestExport_Golden -update rewrites
// them). The session file's directory is written as $DIR.
func TestExport_Golden(t *testing.T) {
	tests := []struct{ name, file, session, leaf, format string }{
		{"v3-compaction-branch.md", "pi/v3-tree.jsonl", "5b7e", "1b3f5d9a", "md"},
		{"v3-active.md", "pi/v3-tree.jsonl", "5b7e", "", "md"},
		{"v2-hookmessage.md", "pi/v2-branches.jsonl", "e4c1", "5f1b7d2e", "md"},
		{"v1-linear.md", "pi/v1-linear.jsonl", "9d3f", "", "md"},
		{"chapter-tree.md", "plain/chapter-tree.jsonl", "chapter-tree", "a-alt", "md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustIndexed(t, testutil.Testdata(t, tt.file))
			args := []string{"export", "--format", tt.format, tt.session}
			if tt.leaf != "" {
				args = append(args, tt.leaf)
			}
			code, stdout, stderr := groveIn(t, db, args...)
			if code != 0 {
				t.Fatalf("grove %s = %d: %s", strings.Join(args, " "), code, stderr)
			}
			got := strings.ReplaceAll(stdout, filepath.Join(filepath.Dir(db), "sessions"), "$DIR")
			testutil.MustMatchGolden(t, filepath.Join("testdata", "export", tt.name), got, *updateGolden)
		})
	}
}

// The three formats and --out: the document on stdout, {"written"} with
// --out, a fork readable as a pi session, existing files left alone.
func TestExport_OutAndFormats(t *testing.T) {
	db := mustIndexed(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), testutil.Testdata(t, "plain/chapter-tree.jsonl"))
	out := t.TempDir()

	code, stdout, stderr := groveIn(t, db, "export", "--format", "html", "5b7e")
	if code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") || !strings.Contains(stdout, "Auth refactor (JWT)") || strings.Contains(stdout, "<script") {
		t.Errorf("export --format html = %d, %q…, %s; want one page, no script", code, head(stdout), stderr)
	}

	page := filepath.Join(out, "t.html")
	code, stdout, _ = groveIn(t, db, "--json", "export", "--format", "html", "--out", page, "5b7e")
	if code != 0 || strings.TrimSpace(stdout) != `{"written":"`+page+`"}` {
		t.Errorf("export --out = %d, %s; want {\"written\": %s}", code, stdout, page)
	}
	code, _, stderr = groveIn(t, db, "export", "--format", "md", "--out", page, "5b7e")
	if code != 1 || !strings.Contains(stderr, "--force") || !strings.Contains(stderr, "file_exists") {
		t.Errorf("export over an existing file = %d, %s; want exit 1, file_exists, naming --force", code, stderr)
	}
	code, stdout, _ = groveIn(t, db, "--json", "export", "--out", filepath.Join(out, "no", "such", "dir.md"), "5b7e")
	var e struct {
		Error struct{ Code, Path, Message string }
	}
	if code != 1 || json.Unmarshal([]byte(stdout), &e) != nil || e.Error.Code != "io_error" || e.Error.Path != filepath.Join(out, "no", "such", "dir.md") || strings.Contains(e.Error.Message, ".tmp") {
		t.Errorf("export into a missing directory = %d, %s; want io_error naming the --out path, not a temporary file", code, stdout)
	}
	if b, _ := os.ReadFile(page); !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Errorf("the existing file was changed: %q", head(string(b)))
	}
	code, _, stderr = groveIn(t, db, "export", "--format", "md", "--force", "--out", page, "5b7e")
	if b, _ := os.ReadFile(page); code != 0 || !strings.HasPrefix(string(b), "# Auth refactor (JWT)") {
		t.Errorf("export --force = %d (%s), file %q; want the Markdown in place", code, stderr, head(string(b)))
	}

	code, stdout, stderr = groveIn(t, db, "--json", "export", "--format", "jsonl", "--out", out, "5b7e", "35c7e0da")
	var w struct{ Written string }
	if code != 0 || json.Unmarshal([]byte(stdout), &w) != nil || !strings.HasSuffix(w.Written, ".jsonl") || filepath.Dir(w.Written) != out {
		t.Fatalf("export --format jsonl --out DIR = %d, %s, %s", code, stdout, stderr)
	}
	code, _, stderr = groveIn(t, db, "index", w.Written)
	if code != 0 {
		t.Fatalf("index the fork: %s", stderr)
	}
	code, stdout, _ = groveIn(t, db, "--json", "path", w.Written)
	var p struct{ Path []string }
	_ = json.Unmarshal([]byte(stdout), &p)
	// The 22 entries to 35c7e0da, then one label entry clearing
	// "decision-point" on 6a1f9e07: the path's own label entry c7d24b98
	// sets it, the source clears it on another branch.
	if code != 0 || len(p.Path) != 23 || p.Path[21] != "35c7e0da" {
		t.Errorf("path of the fork = %d, %s; want the 22 entries to 35c7e0da and a label fix", code, stdout)
	}
	if code, stdout, _ = groveIn(t, db, "tree", "--full", w.Written); code != 0 || strings.Contains(stdout, "[decision-point]") || !strings.Contains(stdout, "label 6a1f9e07 cleared") {
		t.Errorf("tree of the fork = %d:\n%s\nwant decision-point cleared, as in the source", code, stdout)
	}

	// Only regular files are replaced, even with --force: a symlink, a
	// FIFO or a directory stays what it is.
	target := filepath.Join(out, "target.md")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(out, "link.md")
	fifo := filepath.Join(out, "fifo")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, special := range []string{link, fifo, out} {
		code, _, stderr := groveIn(t, db, "export", "--force", "--out", special, "5b7e")
		fi, err := os.Lstat(special)
		if code != 1 || !strings.Contains(stderr, "not a regular file") || err != nil || fi.Mode().IsRegular() {
			t.Errorf("export --force --out %s = %d, %s; want refused, the file left as it was", special, code, stderr)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the symlink's target now holds %q", b)
	}

	for _, bad := range [][]string{
		{"export", "--format", "pdf", "5b7e"},
		{"export", "--format", "jsonl", "--force", "--out", filepath.Join(out, "x.jsonl"), "5b7e"},
	} {
		if code, _, _ := groveIn(t, db, bad...); code != 2 {
			t.Errorf("grove %s = %d, want 2 (usage)", strings.Join(bad, " "), code)
		}
	}
	if code, _, stderr := groveIn(t, db, "export", "--format", "jsonl", "chapter-tree"); code != 1 || !strings.Contains(stderr, "a plain session") || !strings.Contains(stderr, "wrong_dialect") {
		t.Errorf("jsonl export of a plain session = %d, %s; want exit 1, wrong_dialect, explaining", code, stderr)
	}
	if code, stdout, _ := groveIn(t, db, "export", "--out", "-", "5b7e"); code != 0 || !strings.HasPrefix(stdout, "# Auth refactor (JWT)") {
		t.Errorf("export --out - = %d, %q…; want the document on stdout", code, head(stdout))
	}
}

func head(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}
