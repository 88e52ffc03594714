// Package testutil holds helpers shared by grove's tests.
package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the module's root directory (where go.mod is).
func Root(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("testutil: cannot find the source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Testdata returns the path of rel under the module's testdata directory.
func Testdata(tb testing.TB, rel string) string {
	tb.Helper()
	return filepath.Join(Root(tb), "testdata", rel)
}

// MustShared returns the path of rel under ../shared beside the module (the
// read-only cases and corpus), or skips the test with a clear message when
// it is absent.
func MustShared(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Root(tb), "..", "shared", rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("skipping: %s is absent (../shared is only present beside a grove checkout in CI and dev sessions)", p)
	}
	return p
}

// MustTempDB returns the path of a fresh index file in a temporary directory
// removed when the test ends.
func MustTempDB(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(tb.TempDir(), "index.db")
}

// MustWriteFile writes data to a new file name under dir and returns its path.
func MustWriteFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// MustCopy copies the file src to dir/name and returns the new path.
func MustCopy(tb testing.TB, src, dir, name string) string {
	tb.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	return MustWriteFile(tb, dir, name, b)
}
