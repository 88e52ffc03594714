package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// dialectFixtures are the session files of testdata/{messages,claude,codex}
// that have a .tree.json beside them (what grove must find in each, which
// package archive's tests read).
func dialectFixtures(t *testing.T) map[string]struct{} {
	t.Helper()
	out := map[string]struct{}{}
	for _, d := range []string{"messages", "claude", "codex"} {
		root := testutil.Testdata(t, d)
		err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(p, ".tree.json") {
				return err
			}
			out[strings.TrimSuffix(p, ".tree.json")+".jsonl"] = struct{}{}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 5 {
		t.Fatalf("found %d dialect fixtures, want at least 5", len(out))
	}
	return out
}

// Refresh by appended bytes gives every dialect what a clean read gives:
// each fixture is cut after each of its lines, indexed, grown back to the
// whole file and indexed again, and the index must then equal a clean
// index of the whole file (SPEC §6; chains resume from their last entry,
// claude names and active leaves from the whole file).
func TestRefresh_DialectAppends(t *testing.T) {
	testutil.SkipSlow(t, "./internal/ingest", "indexes every fixture cut after each of its lines")
	ctx := context.Background()
	for path := range dialectFixtures(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, filepath.Base(path))
			db := filepath.Join(t.TempDir(), "index.db")
			cleanDB := filepath.Join(t.TempDir(), "clean.db")
			clean := func() string {
				t.Helper()
				os.Remove(cleanDB)
				a := mustOpen(t, cleanDB)
				defer a.Close()
				if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}}); err != nil {
					t.Fatal(err)
				}
				return mustDump(t, a)
			}
			for cut := 0; cut < len(data); cut++ {
				if data[cut] != '\n' {
					continue
				}
				os.Remove(db)
				if err := os.WriteFile(file, data[:cut+1], 0o600); err != nil {
					t.Fatal(err)
				}
				a := mustOpen(t, db)
				if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}}); err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(data[cut+1:])
				f.Close()
				sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}})
				if err != nil {
					t.Fatal(err)
				}
				got := mustDump(t, a)
				a.Close()
				if want := clean(); got != want {
					t.Fatalf("cut after byte %d (appended %d of %d files): index after the append differs from a clean index:\n%s",
						cut, sum.Appended, sum.Files, testutil.FirstDiff(got, want))
				}
			}
		})
	}
}
