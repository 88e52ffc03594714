package main

import (
	"database/sql"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// Damage deeper than Open looks (the root page of the index the path query
// walks) is found by the command that reads it: a reading command reports
// damaged_index with the index path; grove index --force meets it while
// re-indexing, sets the index aside and builds a new one in the same run.
func TestRun_DamageFoundAfterOpen(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	roots := filepath.Join(dir, "sessions")
	for _, f := range []string{"pi/v3-tree.jsonl", "plain/chapter-tree.jsonl"} {
		testutil.MustCopy(t, testutil.Testdata(t, f), roots, filepath.Base(f))
	}
	grove := groveOn(t, db)
	if code, _, stderr := grove("index", "--root", roots); code != 0 {
		t.Fatalf("grove index = %d, %s", code, stderr)
	}

	// Overwrite the root page of entries_by_id with garbage.
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var page int
	err = conn.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = 'entries_by_id'").Scan(&page)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(garbage)
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(garbage, int64(page-1)*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()

	if code, _, stderr := grove("sessions"); code != 0 {
		t.Fatalf("grove sessions = %d, %s; want 0 (it does not read the damaged page)", code, stderr)
	}
	code, stdout, _ := grove("--json", "path", "chapter-tree", "meta-cwd")
	var got struct {
		Error struct{ Code, Path, Hint string }
	}
	json.Unmarshal([]byte(stdout), &got)
	if code != 1 || got.Error.Code != "damaged_index" || got.Error.Path != db || !strings.Contains(got.Error.Hint, "grove rebuild") {
		t.Fatalf("grove --json path = %d, %s; want exit 1, damaged_index naming %s with a grove rebuild hint", code, stdout, db)
	}
	if m, _ := filepath.Glob(db + ".damaged-*"); len(m) > 0 {
		t.Fatalf("a reading command moved the index: %v", m)
	}

	code, stdout, stderr := grove("index", "--force", "--root", roots)
	if code != 0 || !strings.Contains(stdout, "2 indexed") || !strings.Contains(stderr, "was damaged (database disk image is malformed); moved it to "+db+".damaged-") {
		t.Fatalf("grove index --force = %d\nstdout: %s\nstderr: %s\nwant 0, 2 indexed, and the damaged index set aside", code, stdout, stderr)
	}
	if code, stdout, stderr := grove("--json", "path", "chapter-tree", "meta-cwd"); code != 0 {
		t.Fatalf("grove path on the new index = %d, %s %s", code, stdout, stderr)
	}
}
