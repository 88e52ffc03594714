package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/kept"
	"github.com/grove-sessions/grove/internal/testutil"
)

// keptCorpus copies the session files of ../shared/corpus (pi, Claude
// Code, Codex, messages; skipped with a message when absent) into a
// temporary folder, as an agent's files would be, and returns it with the
// session files in it.
func keptCorpus(t *testing.T) (root string, files []string) {
	t.Helper()
	src := testutil.MustShared(t, "corpus")
	root = filepath.Join(t.TempDir(), "sessions")
	for _, agent := range []string{"pi", "claude", "codex", "messages"} {
		filepath.WalkDir(filepath.Join(src, agent), func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return nil
			}
			rel, _ := filepath.Rel(src, p)
			to := filepath.Join(root, rel)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(to), 0o700)
			if err := os.WriteFile(to, b, 0o600); err != nil {
				t.Fatal(err)
			}
			files = append(files, to)
			return nil
		})
	}
	if len(files) == 0 {
		t.Skipf("skipping: no session file in %s", src)
	}
	root, _ = filepath.EvalSymlinks(root)
	for i := range files {
		files[i], _ = filepath.EvalSymlinks(files[i])
	}
	return root, files
}

// keptRun runs the grove binary with env added to its environment and
// returns its exit status and output.
func keptRun(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(mustGroveBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// keptAnswers is every reading command's answer for each file: path,
// messages, context, tree (its state mark left out: a gone session says
// so), export as Markdown, and a search's hits.
func keptAnswers(t *testing.T, db string, files []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range files {
		for _, c := range [][]string{{"path"}, {"messages"}, {"context"}, {"tree"}, {"export", "--format", "md"}, {"path", "--json"}} {
			code, o, e := keptRun(t, nil, append(append([]string{"--db", db}, c...), f)...)
			if c[0] == "tree" {
				o = strings.Replace(o, "  (gone)\n", "\n", 1)
			}
			out[strings.Join(c, " ")+" "+f] = strings.Join([]string{string(rune('0' + code)), o, e}, "\x00")
		}
	}
	for _, q := range []string{"the", "file", "error"} {
		code, o, e := keptRun(t, nil, "--db", db, "search", "--json", q)
		out["search "+q] = strings.Join([]string{string(rune('0' + code)), o, e}, "\x00")
	}
	return out
}

// mustSameAnswers fails for each answer that differs.
func mustSameAnswers(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	bad := 0
	for k, want := range before {
		if got := after[k]; got != want && bad < 5 {
			bad++
			t.Errorf("%s: grove %s answers\n%.600q\nwant\n%.600q", what, k, got, want)
		}
	}
}

// sessionStates is `grove sessions --json`'s state of each file.
func sessionStates(t *testing.T, db string) map[string]string {
	t.Helper()
	code, o, e := keptRun(t, nil, "--db", db, "sessions", "--json")
	if code != 0 {
		t.Fatalf("grove sessions: exit %d\n%s", code, e)
	}
	var out struct {
		Sessions []struct{ Path, State string }
	}
	if err := json.Unmarshal([]byte(o), &out); err != nil {
		t.Fatalf("grove sessions --json: %v\n%s", err, o)
	}
	states := map[string]string{}
	for _, s := range out.Sessions {
		states[s.Path] = s.State
	}
	return states
}

// TestKept_GoneAnswersAsBefore: every session file of the real corpora is
// indexed, then deleted: the next `grove index` lists each with state
// gone, and path, messages, context, tree, export and search answer as
// they did before, byte for byte, from the kept store (SPEC §11). With
// --no-keep nothing is kept and the sessions leave the index as before.
func TestKept_GoneAnswersAsBefore(t *testing.T) {
	root, files := keptCorpus(t)
	db := filepath.Join(t.TempDir(), "index", "index.db")
	if code, _, e := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
		t.Fatalf("grove index: exit %d\n%s", code, e)
	}
	before := keptAnswers(t, db, files)
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, e := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
		t.Fatalf("grove index after the files were deleted: exit %d\n%s", code, e)
	}
	states := sessionStates(t, db)
	for _, f := range files {
		if states[f] != "gone" {
			t.Errorf("%s: state %q, want gone", f, states[f])
		}
	}
	mustSameAnswers(t, "after the files were deleted", before, keptAnswers(t, db, files))

	// The index is disposable: made again by rebuild, or by index after
	// it was deleted, from the kept store, the answers are the same.
	if code, _, e := keptRun(t, nil, "--db", db, "rebuild", "--root", root); code != 0 {
		t.Fatalf("grove rebuild: exit %d\n%s", code, e)
	}
	mustSameAnswers(t, "after rebuild", before, keptAnswers(t, db, files))
	gone, _ := filepath.Glob(db + "*")
	for _, p := range gone {
		os.Remove(p)
	}
	if code, _, e := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
		t.Fatalf("grove index of a new index: exit %d\n%s", code, e)
	}
	states = sessionStates(t, db)
	for _, f := range files {
		if states[f] != "gone" {
			t.Errorf("after the index was deleted: %s: state %q, want gone", f, states[f])
		}
	}
	mustSameAnswers(t, "after the index was deleted", before, keptAnswers(t, db, files))
}

// TestKept_NoKeep: with --no-keep or GROVE_KEEP=0 no kept store is made,
// and a session whose file is gone leaves the index, as it did before
// keeping.
func TestKept_NoKeep(t *testing.T) {
	root, files := keptCorpus(t)
	for name, run := range map[string][]string{"flag": {"index", "--no-keep"}, "env": {"index"}} {
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "index.db")
			var env []string
			if name == "env" {
				env = []string{"GROVE_KEEP=0"}
			}
			if code, _, e := keptRun(t, env, append(append([]string{"--db", db}, run...), "--root", root)...); code != 0 {
				t.Fatalf("grove index: exit %d\n%s", code, e)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(db), "kept")); err == nil {
				t.Errorf("a kept store was made")
			}
			if states := sessionStates(t, db); len(states) != len(files) {
				t.Errorf("%d sessions listed, want %d", len(states), len(files))
			}
		})
	}
}

// mustKeptEqualsFiles checks the kept store beside the index at db against
// the session files: each file's kept copy is exactly its committed bytes
// (up to its last LF), nothing missing and nothing kept twice.
func mustKeptEqualsFiles(t *testing.T, db string, files []string, what string) {
	t.Helper()
	st := kept.Open(kept.Dir(db))
	list, err := st.List()
	if err != nil {
		t.Fatalf("%s: kept store: %v", what, err)
	}
	byPath := map[string]kept.Entry{}
	for _, e := range list {
		byPath[e.Path] = e
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		committed := b[:bytes.LastIndexByte(b, '\n')+1]
		e, ok := byPath[f]
		if !ok {
			if len(committed) > 0 {
				t.Errorf("%s: %s is not kept", what, f)
			}
			continue
		}
		kf, err := st.OpenFile(e.Source, e.Path)
		if err != nil {
			t.Fatalf("%s: %s: %v", what, f, err)
		}
		got := make([]byte, kf.Size())
		_, err = kf.ReadAt(got, 0)
		kf.Close()
		if err != nil && len(got) > 0 {
			t.Fatalf("%s: %s: read the kept copy: %v", what, f, err)
		}
		if !bytes.Equal(got, committed) {
			t.Errorf("%s: %s: kept %d bytes, the file has %d committed", what, f, len(got), len(committed))
		}
	}
}

// TestKept_KilledWhileKeeping: `grove index` (every other round --force,
// which reads every file whole) is killed with SIGKILL at random moments
// while session files grow between rounds; after each kill the next
// `grove index` leaves every file's kept copy equal to its committed bytes:
// kept bytes the index did not know are read again, never kept twice, and
// a torn frame is cut (SPEC §11).
func TestKept_KilledWhileKeeping(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	files := generated(t, root, corpusgen.Options{
		Seed: 11, Size: 512 << 10, MaxSession: 64 << 10, ChineseShare: 0.2, ForkRate: 0.1, PlainShare: 0.1})
	db := filepath.Join(dir, "index.db")
	start := time.Now()
	if _, err := runGrove(t, filepath.Join(dir, "timing", "index.db"), "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	rng := rand.New(rand.NewPCG(11, 0))
	for round := 0; round < 6; round++ {
		for i := 0; i < 3; i++ {
			f := files[rng.IntN(len(files))]
			fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(fh, `{"type":"custom","customType":"kept-test","id":"kept-%d-%d","parentId":null,"timestamp":"2026-11-30T00:00:00.000Z","data":{"round":%d}}`+"\n", round, i, round)
			fh.Close()
		}
		args := []string{"--db", db, "index", "--root", root}
		if round%2 == 1 {
			args = append(args, "--force")
		}
		p := exec.Command(mustGroveBinary(t), args...)
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		wait := time.Duration(rng.Int64N(int64(full) + 1))
		time.Sleep(wait)
		p.Process.Signal(syscall.SIGKILL)
		p.Wait()
		if _, err := runGrove(t, db, "--json", "index", "--root", root); err != nil {
			t.Fatalf("round %d (killed after %v): the next index failed: %v", round, wait, err)
		}
		mustKeptEqualsFiles(t, db, files, fmt.Sprintf("round %d (killed after %v)", round, wait))
	}
}

// TestKept_RewriteKeepsEarlierVersion: a session file rewritten (another
// content at its path), then truncated, keeps each earlier content as an
// earlier version in the kept store, and the new content as the current
// one; the index answers the current one (SPEC §11).
func TestKept_RewriteKeepsEarlierVersion(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	os.MkdirAll(root, 0o700)
	file := filepath.Join(root, "s.jsonl")
	first, _ := os.ReadFile(testutil.Testdata(t, "pi/v3-tree.jsonl"))
	second, _ := os.ReadFile(testutil.Testdata(t, "pi/v2-branches.jsonl"))
	third := second[:bytes.IndexByte(second, '\n')+1]
	third = append(third, second[len(third):][:bytes.IndexByte(second[len(third):], '\n')+1]...)
	db := filepath.Join(dir, "index", "index.db")
	var want [][]byte
	for i, content := range [][]byte{first, second, third} {
		if err := os.WriteFile(file, content, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(file, time.Unix(int64(1000+i), 0), time.Unix(int64(1000+i), 0))
		if code, _, e := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
			t.Fatalf("grove index: exit %d\n%s", code, e)
		}
		want = append(want, content)
	}
	st := kept.Open(kept.Dir(db))
	list, err := st.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("kept store lists %+v, %v; want one file", list, err)
	}
	e := list[0]
	if n := st.Versions(e.Source, e.Path); n != 2 {
		t.Fatalf("%d earlier versions, want 2", n)
	}
	read := func(f *kept.File, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, f.Size())
		f.ReadAt(b, 0)
		return b
	}
	for i := 1; i <= 2; i++ {
		if got := read(st.OpenVersion(e.Source, e.Path, i)); !bytes.Equal(got, want[i-1]) {
			t.Errorf("earlier version %d: %d bytes, want the %d of content %d", i, len(got), len(want[i-1]), i)
		}
	}
	if got := read(st.OpenFile(e.Source, e.Path)); !bytes.Equal(got, third) {
		t.Errorf("current version: %d bytes, want %d", len(got), len(third))
	}
}
