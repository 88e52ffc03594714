package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeShape's sessions have the shapes the shapes step names: leaves
// and the deepest path of a comb, a star and a chain of 10 entries.
func TestWriteShape(t *testing.T) {
	for _, c := range []struct {
		shape           string
		leaves, deepest int
	}{{"comb", 5, 6}, {"star", 9, 2}, {"chain", 1, 10}} {
		file := filepath.Join(t.TempDir(), c.shape+".jsonl")
		if err := writeShape(file, c.shape, 10); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		parent := map[string]string{}
		children := map[string]int{}
		var ids []string
		for i, l := range lines {
			var e struct {
				Type, ID string
				ParentID *string
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("%s line %d: %v", c.shape, i+1, err)
			}
			if i == 0 {
				if e.Type != "session" {
					t.Fatalf("%s: first line %q is not a header", c.shape, l)
				}
				continue
			}
			ids = append(ids, e.ID)
			if e.ParentID != nil {
				parent[e.ID] = *e.ParentID
				children[*e.ParentID]++
			}
		}
		leaves, deepest := 0, 0
		for _, id := range ids {
			if children[id] == 0 {
				leaves++
			}
			d := 1
			for p, ok := parent[id]; ok; p, ok = parent[p] {
				d++
			}
			deepest = max(deepest, d)
		}
		if len(ids) != 10 || leaves != c.leaves || deepest != c.deepest {
			t.Errorf("%s: %d entries, %d leaves, deepest path %d; want 10, %d, %d", c.shape, len(ids), leaves, deepest, c.leaves, c.deepest)
		}
	}
}
