package corpusgen

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// node is what the tree tests read of a committed entry line.
type node struct {
	ID       string  `json:"id"`
	ParentID *string `json:"parentId"`
	raw      []byte
	line     int
}

// mustEntries returns the committed entries of a corpus file in file
// order, skipping the pi header, the declared bad line and the tail.
func mustEntries(tb testing.TB, dir string, f File) []node {
	tb.Helper()
	lines := mustLines(tb, filepath.Join(dir, f.Path))
	var out []node
	for i, l := range lines[:len(lines)-1] {
		if (f.Dialect == "pi" && i == 0) || (f.Damage == DamageBadLine && i+1 == f.DamageLine) {
			continue
		}
		var n node
		if err := json.Unmarshal(l, &n); err != nil {
			tb.Fatalf("%s:%d: %v", f.Path, i+1, err)
		}
		n.raw, n.line = l, i+1
		out = append(out, n)
	}
	return out
}

// TestCorpus_TreeIsWellFormed: ids are unique in a session and every
// parentId names an earlier entry, except for the one entry of a
// missing_parent file, at its declared line.
func TestCorpus_TreeIsWellFormed(t *testing.T) {
	dir, m := mustShared(t)
	branched := 0
	for _, f := range m.Files {
		branched += checkTree(t, dir, f)
	}
	if branched < len(m.Files) {
		t.Errorf("%d branch points in %d files, want a few per session", branched, len(m.Files))
	}
}

// checkTree checks the tree rules of one file and returns its number of
// branch points.
func checkTree(t *testing.T, dir string, f File) (branched int) {
	t.Helper()
	seen := map[string]bool{}
	children := map[string]int{}
	var missing []int
	for _, n := range mustEntries(t, dir, f) {
		if n.ID == "" || seen[n.ID] {
			t.Errorf("%s:%d: id %q empty or seen before", f.Path, n.line, n.ID)
		}
		if n.ParentID != nil {
			if !seen[*n.ParentID] {
				missing = append(missing, n.line)
			}
			if children[*n.ParentID]++; children[*n.ParentID] == 2 {
				branched++
			}
		}
		seen[n.ID] = true
	}
	want := 0
	if f.Damage == DamageMissingParent {
		want = 1
	}
	if len(missing) != want || (want == 1 && missing[0] != f.DamageLine) {
		t.Errorf("%s (damage %q at %d): parents missing at lines %v", f.Path, f.Damage, f.DamageLine, missing)
	}
	return branched
}

// TestCorpus_ForksCopyAPath: a fork's entries after its header begin with
// the path from the root to ForkEntry of its parent, byte for byte.
func TestCorpus_ForksCopyAPath(t *testing.T) {
	dir, m := mustShared(t)
	byPath := map[string]File{}
	for _, f := range m.Files {
		byPath[f.Path] = f
	}
	forks := 0
	for _, f := range m.Files {
		if f.Forked {
			forks++
			checkFork(t, dir, f, byPath)
		}
	}
	if forks == 0 {
		t.Fatal("no forks in the shared corpus")
	}
}

func checkFork(t *testing.T, dir string, f File, byPath map[string]File) {
	t.Helper()
	parent, ok := byPath[f.Parent]
	if !ok || parent.Damage != "" {
		t.Fatalf("%s: parent %q not in the manifest or damaged", f.Path, f.Parent)
	}
	byID := map[string]node{}
	for _, n := range mustEntries(t, dir, parent) {
		byID[n.ID] = n
	}
	var path []node // ForkEntry up to the root
	for id := f.ForkEntry; ; {
		n, ok := byID[id]
		if !ok {
			t.Fatalf("%s: entry %s is not in the parent %s", f.Path, id, f.Parent)
		}
		path = append(path, n)
		if n.ParentID == nil {
			break
		}
		id = *n.ParentID
	}
	got := mustEntries(t, dir, f)
	if len(path) != f.Prefix || len(got) <= f.Prefix {
		t.Fatalf("%s: path of %d entries, manifest prefix %d, file has %d entries", f.Path, len(path), f.Prefix, len(got))
	}
	for i := range path {
		want := path[len(path)-1-i]
		if !bytes.Equal(got[i].raw, want.raw) {
			t.Errorf("%s:%d is not a copy of %s:%d", f.Path, got[i].line, f.Parent, want.line)
		}
	}
}
