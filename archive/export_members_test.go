package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
)

// Migrating a version 1 entry (SPEC §3.2, §5) walks its members with
// jsonl.Members: every member keeps its place, a key given twice is kept
// twice (and a hookMessage's role renamed in both), values keep their bytes
// and only the whitespace between them goes.
func TestForkLines_MigrationKeepsMembers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "v1.jsonl")
	lines := `{"type":"session","id":"6a1d0c52-8a8f-4c2e-9d41-1b3e5f7a9c0d","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}
{ "type" : "message", "timestamp":"2026-03-01T10:00:01.000Z", "message":{"role":"user","content":"hi \u00e9"}, "note": 1, "note" :  [ 2 , 9007199254740993 ] }
{"type":"message","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"hookMessage", "content":"x","role":"hookMessage"}}
`
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	p, path, labels, err := a.ExportPath(ctx, "6a1d", "L3")
	if err != nil {
		t.Fatal(err)
	}
	got, err := archive.ForkLines(p.Session, path, labels, "f", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"type":"message","timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"hi \u00e9"},"note":1,"note":[2,9007199254740993],"id":"L2","parentId":null}`,
		`{"type":"message","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"custom","content":"x","role":"custom"},"id":"L3","parentId":"L2"}`,
	}
	if len(got) != 3 {
		t.Fatalf("ForkLines = %d lines, want 3: %q", len(got), got)
	}
	for i, w := range want {
		if string(got[i+1]) != w {
			t.Errorf("ForkLines line %d = %s, want %s", i+2, got[i+1], w)
		}
	}
}
