package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// A symlink to a folder below a root is not followed, and grove says so on
// every run (not_followed, on stderr and under "unsupported" in --json),
// exit 0; once where it leads is a root of the run too, its sessions are
// indexed there and nothing is said.
func TestIndex_SymlinkedFolderIsNamed(t *testing.T) {
	tmp := t.TempDir()
	outside, root := filepath.Join(tmp, "elsewhere"), filepath.Join(tmp, "root")
	data, err := os.ReadFile(testutil.Testdata(t, "pi/v3-tree.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.MustWriteFile(t, outside, "s.jsonl", data)
	testutil.MustWriteFile(t, root, "notes.txt", []byte("not a session\n"))
	link := filepath.Join(root, "linked")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "index.db")
	for run := 0; run < 2; run++ { // the cold build, then a refresh
		code, out, stderr := groveIn(t, db, "index", "--root", root)
		want := "grove: " + link + ": a symlink to a folder (" + outside + "), not followed [not_followed] (to index the sessions in it, name it: grove index --root " + link + ")"
		if code != 0 || !strings.Contains(stderr, want) || !strings.HasPrefix(out, "0 files") {
			t.Errorf("run %d: grove index --root %s = %d\nstdout %s\nstderr %s\nwant stderr %q", run, root, code, out, stderr, want)
		}
	}
	code, out, _ := groveIn(t, db, "--json", "index", "--root", root)
	var sum struct {
		Unsupported []struct{ Path, Code string }
	}
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || len(sum.Unsupported) != 1 || sum.Unsupported[0].Path != link || sum.Unsupported[0].Code != "not_followed" {
		t.Errorf("grove --json index = %d, %v: %s", code, err, out)
	}
	code, out, stderr := groveIn(t, db, "index", "--root", root, "--root", outside)
	if code != 0 || strings.Contains(stderr, "not_followed") || !strings.HasPrefix(out, "1 file: 1 indexed") {
		t.Errorf("with its folder a root too: %d\n%s\n%s", code, out, stderr)
	}
}
