package archive_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/index"
)

// An index made before branch kinds (no kind columns, schema one less)
// gets them at the next grove index: the migration has Claude Code files
// read whole again, and the pi file is left unchanged.
func TestKinds_MigrationRereadsClaudeFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	line := func(id, parent, body string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return fmt.Sprintf(`{"uuid":%q,"parentUuid":%s,"sessionId":"s","cwd":"/w","timestamp":"2026-03-18T09:00:00.000Z",%s}`, id, p, body)
	}
	claude := []string{
		line("u1", "", `"type":"user","message":{"role":"user","content":"look"}`),
		line("a1", "u1", `"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}`),
		line("a2", "a1", `"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{}}]}`),
		line("r1", "a1", `"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}`),
		line("r2", "a2", `"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"y"}]}`),
		line("a3", "r2", `"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]}`),
	}
	projects := filepath.Join(dir, "projects", "-w")
	if err := os.MkdirAll(projects, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(projects, "s.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(claude, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pi := filepath.Join(dir, "pi")
	if err := os.MkdirAll(pi, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pi, "p.jsonl"), mustRead(t, "../testdata/pi/v3-tree.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "index.db")
	roots := []string{filepath.Join(dir, "projects"), pi}
	a := mustOpenArchive(t, db)
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: roots}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	// Back to the schema before the kinds (the kept store's gone mark
	// came after them).
	mustSQL(t, db, "ALTER TABLE entries DROP COLUMN kind", "ALTER TABLE entries DROP COLUMN path_kind", "ALTER TABLE sessions DROP COLUMN real_leaves",
		"ALTER TABLE sessions DROP COLUMN gone", fmt.Sprintf("PRAGMA user_version = %d", index.SchemaVersion()-2))

	a = mustOpenArchive(t, db)
	leaves, err := a.Leaves(ctx, archive.Filter{Session: file})
	if err != nil {
		t.Fatal(err)
	}
	if len(leaves) != 2 {
		t.Fatalf("before the next grove index: %d leaves, want both (no kinds yet)", len(leaves))
	}
	sum, err := a.Index(ctx, archive.IndexOptions{Roots: roots})
	if err != nil || sum.Indexed != 1 || sum.Unchanged != 1 {
		t.Fatalf("Index after the migration = %+v, %v; want the Claude Code file read again, the pi file unchanged", sum, err)
	}
	leaves, err = a.Leaves(ctx, archive.Filter{Session: file})
	if err != nil {
		t.Fatal(err)
	}
	if len(leaves) != 1 || leaves[0].EntryID != "a3" {
		t.Fatalf("after: leaves %+v, want a3 alone (r1 is parallel)", leaves)
	}
}
