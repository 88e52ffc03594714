package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/testutil"
)

var (
	groveBinOnce sync.Once
	groveBin     string
	groveBinErr  error
)

// mustGroveBinary builds grove once per test run into a temporary
// directory: crash tests need a real process to kill. Under -race the
// binary has the race detector too, and a race it finds makes it exit 66.
func mustGroveBinary(t *testing.T) string {
	t.Helper()
	groveBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "grove-bin-*")
		if err != nil {
			groveBinErr = err
			return
		}
		groveBin = filepath.Join(dir, "grove")
		args := []string{"build", "-o", groveBin}
		if raceBinary {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			groveBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if groveBinErr != nil {
		t.Fatal(groveBinErr)
	}
	return groveBin
}

// runGrove runs the grove binary to completion and returns its stdout.
func runGrove(t *testing.T, db string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(mustGroveBinary(t), append([]string{"--db", db}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("grove %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String(), err
}

// dumpIndex opens the index at db in this process and dumps it.
func dumpIndex(t *testing.T, db string) string {
	t.Helper()
	d, err := index.Open(context.Background(), db)
	if err != nil {
		t.Fatalf("open %s: %v", db, err)
	}
	defer d.Close()
	var b bytes.Buffer
	if err := d.Dump(context.Background(), &b); err != nil {
		t.Fatalf("dump %s: %v", db, err)
	}
	return b.String()
}

func dumpDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n  after the crash: %s\n  clean build:     %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines after the crash, %d in a clean build", len(g), len(w))
}

// TestCrash_KillIndexAndRebuild is the crash rule (docs/indexing.md "Crashes"), with
// real processes: `grove index` and `grove rebuild` are killed with SIGKILL
// at random moments, -crash.rounds rounds (30 by default), while session
// files keep growing between rounds as an agent would append to them.
// After each kill the next `grove index` finishes, `grove verify` is
// clean, and the index's canonical dump equals that of a clean build of
// the same files.
func TestCrash_KillIndexAndRebuild(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "-crash.rounds kills of grove index and rebuild, about 4 grove runs each")
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	files := generated(t, root, corpusgen.Options{
		Seed: 5, Size: 1 << 20, MaxSession: 48 << 10, DamageRate: 0.1, ChineseShare: 0.2, ForkRate: 0.1, PlainShare: 0.1})
	db := filepath.Join(dir, "index.db")
	// How long an uninterrupted cold index takes bounds the kill times.
	start := time.Now()
	if _, err := runGrove(t, filepath.Join(dir, "timing.db"), "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	rng := rand.New(rand.NewPCG(5, 0))
	for round := 0; round < *crashRounds; round++ {
		// An agent appends to a few sessions; one gets a torn tail.
		for i := 0; i < 3; i++ {
			f := files[rng.IntN(len(files))]
			line := fmt.Sprintf(`{"type":"custom","customType":"crash-test","id":"crash-%d-%d","parentId":null,"timestamp":"2026-11-30T00:00:00.000Z","data":{"round":%d}}`, round, i, round)
			if i == 2 && rng.IntN(3) == 0 {
				line = line[:len(line)/2] // torn: no LF
			} else {
				line += "\n"
			}
			fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fh.WriteString(line)
			fh.Close()
		}
		cmd := "index"
		if round%3 == 2 {
			cmd = "rebuild"
		}
		args := []string{"--db", db, cmd, "--root", root}
		if round%6 == 0 {
			args = append(args, "--force") // a long run, so the kill lands mid-way
			if cmd == "rebuild" {
				args = args[:len(args)-1]
			}
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
			t.Fatalf("round %d (%s killed after %v): the next index failed: %v", round, cmd, wait, err)
		}
		if out, err := runGrove(t, db, "--json", "verify"); err != nil || !strings.Contains(out, `"mismatches":0,"stale":0`) {
			t.Fatalf("round %d (%s killed after %v): verify: %s %v", round, cmd, wait, out, err)
		}
		mustKeptEqualsFiles(t, db, files, fmt.Sprintf("round %d (%s killed after %v)", round, cmd, wait))
		clean := filepath.Join(dir, fmt.Sprintf("clean-%d.db", round))
		if _, err := runGrove(t, clean, "index", "--root", root); err != nil {
			t.Fatal(err)
		}
		if got, want := dumpIndex(t, db), dumpIndex(t, clean); got != want {
			t.Fatalf("round %d (%s killed after %v): the index differs from a clean build\n%s", round, cmd, wait, dumpDiff(got, want))
		}
		for _, s := range []string{"", "-wal", "-shm", ".lock"} {
			os.Remove(clean + s)
		}
	}
}

// generated writes a corpus of opts (corpusgen) to root and returns its
// session files, sorted; it fails the test when there are none.
func generated(t *testing.T, root string, opts corpusgen.Options) []string {
	t.Helper()
	if _, err := corpusgen.Generate(context.Background(), root, opts); err != nil {
		t.Fatal(err)
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("generated corpus: %d files, %v", len(files), err)
	}
	return files
}

// A rebuild killed after it swapped its index in and removed it leaves
// that index's lock and list of sources (<index>.rebuild.lock,
// <index>.rebuild.sources); the next grove index removes them, as it
// removes the rest of a killed rebuild's files (docs/indexing.md
// "Crashes").
func TestCrash_IndexRemovesAKilledRebuildsLockAndSources(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), root, "a.jsonl")
	db := filepath.Join(t.TempDir(), "index.db")
	if _, err := runGrove(t, db, "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	left := []string{db + ".rebuild.lock", db + ".rebuild.sources"}
	for _, f := range left {
		if err := os.WriteFile(f, []byte("left by a killed rebuild\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runGrove(t, db, "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after grove index (%v)", f, err)
		}
	}
}
