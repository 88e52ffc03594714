package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// The command a damaged_index hint names: `grove rebuild`.
var hintCommand = regexp.MustCompile("`grove ([a-z]+)`")

// TestRun_EveryDamagedPageRepairedByItsHint damages each page of a real
// index in turn (overwritten with garbage) and runs every reading command:
// each either answers as on the whole index, or fails with damaged_index
// whose hint names a command; running that command then makes the reading
// command answer as on the whole index (SPEC §6: an error about a damaged
// index names the command that repairs it, and that command does; a hint
// naming `grove index` would fail that, since index answers "unchanged").
func TestRun_EveryDamagedPageRepairedByItsHint(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "every page of an index damaged in turn, 14 commands on each")
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	roots := filepath.Join(dir, "sessions")
	for _, f := range []string{"pi/v1-linear.jsonl", "pi/v2-branches.jsonl", "pi/v3-tree.jsonl", "plain/chapter-tree.jsonl"} {
		testutil.MustCopy(t, testutil.Testdata(t, f), roots, filepath.Base(f))
	}
	grove := groveOn(t, db)
	if code, _, stderr := grove("index", "--root", roots); code != 0 {
		t.Fatalf("grove index = %d, %s", code, stderr)
	}
	// Close checkpointed the WAL: every page is in the main file.
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const pageSize = 4096
	pages := len(good) / pageSize
	reads := [][]string{
		{"sessions"}, {"workspaces"}, {"leaves"}, {"branches"}, {"verify"},
		{"search", "login"}, {"search", "认证"},
		{"path", "chapter-tree"}, {"path", "5b7e"}, {"messages", "5b7e"}, {"context", "5b7e"},
		{"tree", "5b7e"}, {"leaves", "--session", "9d3f"}, {"export", "5b7e"},
	}
	want := map[string]string{}
	for _, r := range reads {
		code, stdout, stderr := grove(append([]string{"--json"}, r...)...)
		if code != 0 {
			t.Fatalf("grove %v on the whole index = %d, %s %s", r, code, stdout, stderr)
		}
		want[strings.Join(r, " ")] = stdout
	}
	reset := func(n int) {
		old, _ := filepath.Glob(db + "*")
		for _, f := range old {
			if f != archive.SourcesPath(db) { // what grove index wrote beside it
				os.Remove(f)
			}
		}
		b := bytes.Clone(good)
		// Page 1 keeps its first 100 bytes, the SQLite header that says
		// the file is grove's: without it grove cannot tell its index from
		// another application's file, and never touches it (not_index).
		from := (n - 1) * pageSize
		if n == 1 {
			from = 100
		}
		rand.New(rand.NewSource(int64(n))).Read(b[from : n*pageSize])
		if err := os.WriteFile(db, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d pages", pages)
	for n := 1; n <= pages; n++ {
		for _, r := range reads {
			key := strings.Join(r, " ")
			reset(n)
			code, stdout, _ := grove(append([]string{"--json"}, r...)...)
			if code == 0 {
				if stdout != want[key] {
					t.Errorf("page %d damaged: grove %s answered exit 0 but not as on the whole index:\n%s", n, key, head(stdout))
				}
				continue
			}
			var got struct{ Error struct{ Code, Hint string } }
			json.Unmarshal([]byte(stdout), &got)
			m := hintCommand.FindStringSubmatch(got.Error.Hint)
			if got.Error.Code != "damaged_index" || m == nil {
				t.Errorf("page %d damaged: grove %s = %d, %s; want its answer, or damaged_index with a hint naming a command", n, key, code, head(stdout))
				continue
			}
			if code, stdout, stderr := grove(m[1]); code != 0 {
				t.Errorf("page %d damaged: grove %s failed with damaged_index; the hint's grove %s = %d, %s %s", n, key, m[1], code, head(stdout), stderr)
				continue
			}
			if code, stdout, _ := grove(append([]string{"--json"}, r...)...); code != 0 || stdout != want[key] {
				t.Errorf("page %d damaged: after the hint's grove %s, grove %s = %d, %s; want the whole index's answer", n, m[1], key, code, head(stdout))
			}
		}
	}
}
