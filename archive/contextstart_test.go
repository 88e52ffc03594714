package archive_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// ContextStart, read from the index (and Codex's compacted lines), agrees
// with the context Context builds from every line of the path: no entry
// before the start is kept, and the entry at the start is, for every leaf
// of every pi and Codex testdata session; and it is where the fixtures
// say.
func TestContextStart_AgreesWithContext(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{filepath.Join("..", "testdata", "pi"), filepath.Join("..", "testdata", "codex")}}); err != nil {
		t.Fatal(err)
	}
	leaves, err := a.Leaves(ctx, archive.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	starts := map[string]string{} // file base name: the start's id at its active leaf
	checked := 0
	for _, l := range leaves {
		if l.Depth == nil {
			continue
		}
		p, err := a.Path(ctx, l.Session.Path, l.EntryID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.ContextStart(ctx, p)
		if err != nil {
			t.Fatalf("ContextStart(%s, %s): %v", l.Session.Path, l.EntryID, err)
		}
		_, c, err := a.Context(ctx, l.Session.Path, l.EntryID)
		if err != nil {
			t.Fatal(err)
		}
		kept := map[string]bool{}
		for _, id := range c.KeptEntryIDs {
			kept[id] = true
		}
		for i := 0; i < got; i++ {
			if kept[p.Entries[i].EntryID] {
				t.Errorf("%s at %s: ContextStart = %d (%s), but entry %d (%s) before it is in the context", filepath.Base(l.Session.Path), l.EntryID, got, p.Entries[got].EntryID, i, p.Entries[i].EntryID)
			}
		}
		if got >= 0 {
			if e := p.Entries[got]; e.Type == "message" && !kept[e.EntryID] || e.Type == "compacted" && !kept[e.EntryID] {
				t.Errorf("%s at %s: ContextStart = %d (%s), which the context does not keep", filepath.Base(l.Session.Path), l.EntryID, got, e.EntryID)
			}
			if l.Active {
				starts[filepath.Base(l.Session.Path)] = p.Entries[got].EntryID
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("checked %d leaves, want the testdata's (10 or more)", checked)
	}
	if starts["context-replacement.jsonl"] == "" {
		t.Errorf("context-replacement.jsonl: no context start at its active leaf, want its compacted line with a replacement_history")
	}
	if _, ok := starts["context-rebuild.jsonl"]; ok {
		t.Errorf("context-rebuild.jsonl: a context start %s, want none (a compacted line without replacement_history keeps the user messages before it)", starts["context-rebuild.jsonl"])
	}
	p, err := a.Path(ctx, "5b7e", "1b3f5d9a")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := a.ContextStart(ctx, p); got < 0 || p.Entries[got].EntryID != "d5c80e6b" {
		t.Errorf("v3 demo at 1b3f5d9a: ContextStart = %d, want the compaction's first kept entry d5c80e6b", got)
	}
}
