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
	// Links that lead nowhere are named too; one into the root is not.
	for name, to := range map[string]string{"dangling": filepath.Join(tmp, "nowhere"), "loop": "loop", "up": "."} {
		if err := os.Symlink(to, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(tmp, "index.db")
	for run := 0; run < 2; run++ { // the cold build, then a refresh
		code, out, stderr := groveIn(t, db, "index", "--root", root)
		want := "grove: " + link + ": a symlink to a folder (" + outside + "), not followed [not_followed] (to index the sessions in it, name it: grove index --root " + link + ")"
		if code != 0 || !strings.Contains(stderr, want) || !strings.HasPrefix(out, "0 files") {
			t.Errorf("run %d: grove index --root %s = %d\nstdout %s\nstderr %s\nwant stderr %q", run, root, code, out, stderr, want)
		}
		for _, w := range []string{filepath.Join(root, "dangling") + ": a symlink that leads nowhere (no such", filepath.Join(root, "loop") + ": a symlink that leads nowhere (symlink loop"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("run %d: stderr does not say %q:\n%s", run, w, stderr)
			}
		}
		if strings.Contains(stderr, filepath.Join(root, "up")+":") {
			t.Errorf("run %d: a link into the root itself is named:\n%s", run, stderr)
		}
	}
	code, out, _ := groveIn(t, db, "--json", "index", "--root", root)
	var sum struct {
		Unsupported []struct{ Path, Code string }
	}
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || len(sum.Unsupported) != 3 || sum.Unsupported[1].Path != link || sum.Unsupported[1].Code != "not_followed" {
		t.Errorf("grove --json index = %d, %v: %s", code, err, out)
	}
	code, out, stderr := groveIn(t, db, "index", "--root", root, "--root", outside)
	if code != 0 || strings.Contains(stderr, link+":") || !strings.HasPrefix(out, "1 file: 1 indexed") {
		t.Errorf("with its folder a root too: %d\n%s\n%s", code, out, stderr)
	}
}
