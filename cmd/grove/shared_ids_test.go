package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// Two files holding one session id (copies of one file): the leaves and
// branches tables name each row's file (a FILE column), as the session
// column cannot tell them apart, also when they list only one of them;
// with the id held once, no FILE column.
func TestListings_SharedSessionIDNamesTheFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	a := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), root, "a.jsonl")
	db := filepath.Join(t.TempDir(), "index.db")
	if _, err := runGrove(t, db, "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"leaves", "branches"} {
		out, err := runGrove(t, db, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if head, _, _ := strings.Cut(out, "\n"); strings.Contains(head, "FILE") {
			t.Errorf("grove %s of one file: a FILE column:\n%s", cmd, out)
		}
	}
	b := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), root, "b.jsonl")
	if _, err := runGrove(t, db, "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	// A listing of one of the copies names its file too: the id alone
	// would not tell which.
	for _, args := range [][]string{{"leaves"}, {"branches"}, {"leaves", "--session", a}, {"branches", "--session", b}} {
		out, err := runGrove(t, db, args...)
		if err != nil {
			t.Fatal(err)
		}
		cmd := strings.Join(args, " ")
		if len(args) > 1 {
			file := args[2]
			if head, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(strings.TrimSpace(head), "FILE") || !strings.Contains(out, file) {
				t.Errorf("grove %s: want a FILE column naming it:\n%s", cmd, out)
			}
			continue
		}
		head, _, _ := strings.Cut(out, "\n")
		if !strings.HasSuffix(strings.TrimSpace(head), "FILE") || !strings.Contains(out, a) || !strings.Contains(out, b) {
			t.Errorf("grove %s of two files with one session id: want a FILE column naming %s and %s:\n%s", cmd, a, b, out)
		}
	}
}
