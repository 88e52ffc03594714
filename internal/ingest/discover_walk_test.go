package ingest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// findSessionFiles reads directories on several goroutines; its answer is
// the one a walk with filepath.WalkDir gives (walkDirFiles, the walk it
// replaced): the same files, the same symlinks, the same skipped
// directories in the same order, on a tree of nested directories with
// symlinked files and directories, *.jsonl.zst files with and without a
// plain sibling, agent homes' history files and (when not root) unreadable
// directories.
func TestFindSessionFiles_SameAsWalkDir(t *testing.T) {
	root := t.TempDir()
	line := []byte(`{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
	for i := range 12 {
		for j := range 5 {
			dir := filepath.Join(root, fmt.Sprintf("w%02d", i), fmt.Sprintf("d%d", j), "deeper")
			for k := range 4 {
				testutil.MustWriteFile(t, dir, fmt.Sprintf("s%d.jsonl", k), line)
				testutil.MustWriteFile(t, filepath.Dir(dir), fmt.Sprintf("t%d.jsonl", k), line)
			}
			testutil.MustWriteFile(t, dir, "notes.txt", line)
		}
	}
	// Names that sort differently as paths and as directory entries.
	testutil.MustWriteFile(t, filepath.Join(root, "a"), "x.jsonl", line)
	testutil.MustWriteFile(t, filepath.Join(root, "a-b"), "y.jsonl", line)
	testutil.MustWriteFile(t, filepath.Join(root, "a", "b"), "z.jsonl", line)
	// Compressed rollouts, one beside its plain file; a Codex home.
	testutil.MustWriteFile(t, filepath.Join(root, "codex"), "r.jsonl.zst", line)
	testutil.MustWriteFile(t, filepath.Join(root, "codex"), "p.jsonl.zst", line)
	testutil.MustWriteFile(t, filepath.Join(root, "codex"), "p.jsonl", line)
	testutil.MustWriteFile(t, filepath.Join(root, "codex"), "history.jsonl", line)
	if err := os.MkdirAll(filepath.Join(root, "codex", "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Symlinks: to a file, to a directory (named *.jsonl or not), broken.
	for name, to := range map[string]string{"w00/link.jsonl": "../w01/t0.jsonl", "w02/dir.jsonl": "../w03", "w04/dirlink": "../w05", "w06/broken.jsonl": "nowhere"} {
		if err := os.Symlink(to, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() != 0 {
		for _, d := range []string{"w07/d1", "w09", "w09b"} {
			testutil.MustWriteFile(t, filepath.Join(root, d), "hidden.jsonl", line)
			if err := os.Chmod(filepath.Join(root, d), 0o300); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(filepath.Join(root, d), 0o755) })
		}
	}
	for _, r := range []string{root, filepath.Join(root, "w00"), filepath.Join(root, "a", "x.jsonl")} {
		files, links, skipped, folders, err := findSessionFiles(r)
		if want := []string{filepath.Join(root, "w02", "dir.jsonl"), filepath.Join(root, "w04", "dirlink")}; r == root && !reflect.DeepEqual(folders, want) {
			t.Errorf("symlinked folders under the root = %q, want %q", folders, want)
		}
		wfiles, wlinks, wskipped, werr := walkDirFiles(r)
		if !reflect.DeepEqual(files, wfiles) || !reflect.DeepEqual(links, wlinks) || !reflect.DeepEqual(skipped, wskipped) || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Errorf("findSessionFiles(%s) =\n%q\n%v\n%v\n%v\nWalkDir gives\n%q\n%v\n%v\n%v", r, files, links, skipped, err, wfiles, wlinks, wskipped, werr)
		}
		if r == root && len(files) < 12*5*8 {
			t.Errorf("found %d files under the root, want at least %d", len(files), 12*5*8)
		}
	}
	if _, _, _, _, err := findSessionFiles(filepath.Join(root, "none")); err == nil {
		t.Error("a root that is not there: no error")
	}
}

// walkDirFiles is findSessionFiles as it was, with filepath.WalkDir.
func walkDirFiles(root string) (files []string, links map[string]bool, skipped []Failure, err error) {
	if _, err := os.Stat(root); err != nil {
		return nil, nil, nil, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			skipped = append(skipped, Failure{Path: p, Code: errs.CodeIO, Message: "cannot read directory: " + errs.PathReason(err)})
			return nil
		}
		if d.IsDir() || !isSessionName(filepath.Dir(p), d.Name()) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				return nil
			}
			if links == nil {
				links = map[string]bool{}
			}
			links[p] = true
		}
		files = append(files, p)
		return nil
	})
	sort.Strings(files)
	return files, links, skipped, err
}
