package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MustMatchGolden compares got with the golden file at path, or, when
// update is set (a test's -update flag), writes got there instead,
// creating the directory. A difference fails tb, naming the first line
// that differs.
func MustMatchGolden(tb testing.TB, path, got string, update bool) {
	tb.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run the test with -update to write it)", err)
	}
	if got != string(want) {
		tb.Errorf("output differs from %s (run with -update and review the diff):\n%s", path, FirstDiff(got, string(want)))
	}
}

// FirstDiff shows the first line (1-based) where got and want differ, for
// failure messages; "(no difference)" when they are equal.
func FirstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || (i >= len(g)) != (i >= len(w)) {
			return fmt.Sprintf("line %d:\n  got:  %s\n  want: %s", i+1, gl, wl)
		}
	}
	return "(no difference)"
}
