package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/jsonl"
)

// TestDialectLine: for every dialect, lines made by dialectLine are 1 KB
// with their LF, and appended to the corpus's largest healthy session they
// are read by grove's reader as entries of the same dialect, each the
// child of the one before, the first a child of the manifest's active
// leaf, the last the new last entry.
func TestDialectLine(t *testing.T) {
	for _, d := range benchDialects {
		t.Run(d, func(t *testing.T) {
			o := corpusgen.DefaultOptions()
			o.Size, o.DamageRate, o.ImageRate = 400_000, 0, 0
			if err := o.SetDialects(d); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			m, err := corpusgen.Generate(context.Background(), dir, o)
			if err != nil {
				t.Fatal(err)
			}
			f := m.Files[0]
			file := filepath.Join(dir, filepath.FromSlash(f.Path))
			parent, line := f.ActiveLeaf, f.Lines
			var want []string
			for k := range 3 {
				line++
				l, id := dialectLine(d, &f, parent, line, k)
				if len(l) != dialectLineBytes || !json.Valid([]byte(l[:len(l)-1])) {
					t.Fatalf("line %d: %d bytes, valid JSON %v: %s", k, len(l), json.Valid([]byte(l[:len(l)-1])), l)
				}
				if err := appendLine(file, l); err != nil {
					t.Fatal(err)
				}
				want, parent = append(want, id), id
			}
			es, res, err := jsonl.ReadFile(file, jsonl.Strict)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Dialect) != d || len(es) != f.Entries+3 {
				t.Fatalf("read as %s with %d entries, want %s with %d", res.Dialect, len(es), d, f.Entries+3)
			}
			prev := f.ActiveLeaf
			for i, e := range es[len(es)-3:] {
				if e.ID != want[i] || e.ParentID != prev || e.Root {
					t.Errorf("appended entry %d: id %s parent %s, want %s under %s", i, e.ID, e.ParentID, want[i], prev)
				}
				prev = e.ID
			}
		})
	}
}
