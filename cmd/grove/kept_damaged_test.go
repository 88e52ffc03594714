package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/kept"
)

// A kept copy damaged on disk (a flipped byte inside a frame, a head
// overwritten) while its session file is still there: `grove rebuild` and
// `grove index --force` set it aside untouched (<hash>.jsonl.zst.damaged,
// nothing deleted), say so on stderr naming the kept file and the frame's
// byte, keep the file's committed bytes afresh, and succeed. Before, the
// damage failed every rebuild.
func TestKept_DamagedCopySetAside(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	files := generated(t, root, corpusgen.Options{Seed: 3, Size: 1 << 20, MaxSession: 400 << 10, PlainShare: 0, ChineseShare: 0.3})
	db := filepath.Join(dir, "index", "index.db")
	if code, _, e := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
		t.Fatalf("grove index: exit %d\n%s", code, e)
	}
	st := kept.Open(kept.Dir(db))
	list, err := st.List()
	if err != nil || len(list) < 3 {
		t.Fatalf("kept store: %d copies, %v", len(list), err)
	}
	for _, args := range [][]string{{"rebuild"}, {"index", "--force"}} {
		damaged := map[string][]byte{} // kept file → its damaged bytes
		for i, e := range list[:3] {
			zst := st.Name(e.Source, e.Path) + ".jsonl.zst"
			b, err := os.ReadFile(zst)
			if err != nil {
				t.Fatal(err)
			}
			switch i {
			case 0, 1: // a byte inside the last frame's compressed data
				b[len(b)-1-i*7] ^= 0x5a
			case 2: // the head
				copy(b, "JUNK")
			}
			if err := os.WriteFile(zst, b, 0o600); err != nil {
				t.Fatal(err)
			}
			damaged[zst] = b
		}
		code, _, stderr := keptRun(t, nil, append([]string{"--db", db}, append(args, "--root", root)...)...)
		if code != 0 {
			t.Fatalf("grove %s over damaged kept copies: exit %d\n%s", args[0], code, stderr)
		}
		for zst, b := range damaged {
			if !strings.Contains(stderr, zst) || !strings.Contains(stderr, "set aside") {
				t.Errorf("grove %s did not say that %s was set aside:\n%s", args[0], zst, stderr)
			}
			aside, _ := filepath.Glob(zst + ".damaged*")
			found := false
			for _, a := range aside {
				got, _ := os.ReadFile(a)
				found = found || bytes.Equal(got, b)
			}
			if !found {
				t.Errorf("grove %s: the damaged bytes of %s are not kept aside (%q)", args[0], zst, aside)
			}
		}
		if !strings.Contains(stderr, "frame at byte") {
			t.Errorf("grove %s: no frame offset named:\n%s", args[0], stderr)
		}
		mustKeptEqualsFiles(t, db, files, "after grove "+args[0])
	}
}

// A gone session's kept copy is its only copy: damaged, it is never set
// aside or rewritten. Reading the session and `grove rebuild` fail with
// io_error naming the kept file and the frame's byte and saying what to do;
// the rebuild keeps the index as it was (the session still listed, gone).
func TestKept_DamagedGoneCopyIsLeft(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	generated(t, root, corpusgen.Options{Seed: 4, Size: 600 << 10, MaxSession: 300 << 10, PlainShare: 0})
	db := filepath.Join(dir, "index", "index.db")
	if code, _, e := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
		t.Fatalf("grove index: exit %d\n%s", code, e)
	}
	st := kept.Open(kept.Dir(db))
	list, err := st.List()
	if err != nil || len(list) == 0 {
		t.Fatalf("kept store: %d copies, %v", len(list), err)
	}
	e := list[0]
	if err := os.Remove(e.Path); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
		t.Fatalf("grove index after %s was deleted: exit %d\n%s", e.Path, code, stderr)
	}
	zst := st.Name(e.Source, e.Path) + ".jsonl.zst"
	b, err := os.ReadFile(zst)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-3] ^= 0x5a
	if err := os.WriteFile(zst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"export", "--format", "jsonl", e.Path}, {"rebuild", "--root", root}} {
		code, _, stderr := keptRun(t, nil, append([]string{"--db", db}, args...)...)
		if code != 1 || !strings.Contains(stderr, zst+": frame at byte") || !strings.Contains(stderr, "[io_error]") || !strings.Contains(stderr, "zstd -dc") {
			t.Errorf("grove %s over a gone session's damaged kept copy: exit %d, want 1 naming %s, io_error and what to do:\n%s", args[0], code, zst, stderr)
		}
	}
	// verify names it as a damaged kept copy (io_error), not a stale file
	// that grove index would mend.
	code, stdout, stderr := keptRun(t, nil, "--db", db, "verify")
	if code != 1 || !strings.Contains(stdout, "io_error "+e.Path) || !strings.Contains(stdout, "1 damaged kept copy") || !strings.Contains(stderr, "zstd -dc") || strings.Contains(stderr, "run `grove index`") {
		t.Errorf("grove verify over a gone session's damaged kept copy: exit %d\n%s%s", code, stdout, stderr)
	}
	if got, _ := os.ReadFile(zst); !bytes.Equal(got, b) {
		t.Errorf("the damaged only copy %s was changed", zst)
	}
	if states := sessionStates(t, db); states[e.Path] != "gone" {
		t.Errorf("after the failed rebuild %s is %q, want still listed gone", e.Path, states[e.Path])
	}
}
