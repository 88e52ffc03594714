package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	for _, c := range []struct {
		name string
		args []string
		code int
		out  string // a substring of stdout
		err  string // a substring of stderr
	}{
		{"json summary", []string{"--out", dir, "--size", "300KB", "--seed", "2", "--json"}, exitOK, `"files":`, ""},
		{"not empty", []string{"--out", dir, "--size", "300KB"}, exitFailed, "", "not empty"},
		{"force", []string{"--out", dir, "--size", "300KB", "--force"}, exitOK, "wrote ", ""},
		{"many small files", []string{"--out", dir + "-small", "--size", "1MB", "--files", "20", "--max-session", "6KB"}, exitOK, "wrote 20 files", ""},
		{"tiny cap", []string{"--out", dir + "-tiny", "--size", "1MB", "--max-session", "1KB"}, exitUsage, "", "session cap"},
		{"bad size", []string{"--out", dir, "--size", "lots"}, exitUsage, "", "--size"},
		{"bad share", []string{"--out", dir, "--size", "1MB", "--chinese", "2", "--force"}, exitUsage, "", "chinese share"},
		{"no out", []string{"--size", "1MB"}, exitUsage, "", "out"},
		{"unknown flag", []string{"--out", dir, "--nope"}, exitUsage, "", "nope"},
		{"argument", []string{"--out", dir, "extra"}, exitUsage, "", "unexpected argument"},
		{"dialects", []string{"--out", dir + "-codex", "--size", "300KB", "--dialects", "codex"}, exitOK, "wrote ", ""},
		{"bad dialect", []string{"--out", dir + "-vim", "--size", "300KB", "--dialects", "vim"}, exitUsage, "", "dialect \"vim\""},
		{"dialect shares", []string{"--out", dir + "-over", "--size", "300KB", "--dialects", "claude=0.8,codex=0.8"}, exitUsage, "", "more than 1"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"grove-corpus"}, c.args...), &stdout, &stderr)
		if code != c.code || !strings.Contains(stdout.String(), c.out) || !strings.Contains(stderr.String(), c.err) {
			t.Errorf("%s: run(%q) = %d, stdout %q, stderr %q; want %d, %q, %q",
				c.name, c.args, code, stdout.String(), stderr.String(), c.code, c.out, c.err)
		}
		if c.name == "dialects" {
			m, err := os.ReadFile(filepath.Join(dir+"-codex", "manifest.json"))
			if err != nil || !bytes.Contains(m, []byte(`"dialect": "codex"`)) || bytes.Contains(m, []byte(`"dialect": "pi"`)) {
				t.Errorf("--dialects codex wrote a manifest without codex files only (%v)", err)
			}
		}
		if c.name == "json summary" {
			var s summary
			if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || s.Files == 0 || s.Bytes == 0 {
				t.Errorf("--json printed %q (%v)", stdout.String(), err)
			}
			if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
				t.Errorf("no manifest.json: %v", err)
			}
		}
	}
}
