package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// requiredTables, read from the migrations, names exactly the tables of a
// new index (FTS5's shadow tables aside), and fewer for older versions.
func TestRequiredTables(t *testing.T) {
	d := mustOpen(t, testutil.MustTempDB(t))
	var names []string
	if err := d.db.Select(&names, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'entry_text_%' ORDER BY name"); err != nil {
		t.Fatal(err)
	}
	got, err := requiredTables(SchemaVersion())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, names) {
		t.Fatalf("requiredTables(%d) = %v, want the tables of a new index %v", SchemaVersion(), got, names)
	}
	v1, _ := requiredTables(1)
	if want := []string{"sessions", "entries", "diagnostics", "labels"}; !slices.Equal(v1, want) {
		t.Fatalf("requiredTables(1) = %v, want %v", v1, want)
	}
}

// Corruption met after Open, by any query, is damaged_index naming the
// index; what cannot be written is io_error; anything else is unchanged.
func TestClassify(t *testing.T) {
	dir := t.TempDir()
	bad := testutil.MustWriteFile(t, dir, "bad.db", []byte(sqliteHeader+strings.Repeat("\xff", 200)))
	d := mustOpen(t, testutil.MustTempDB(t))
	// SQLite's own errors, from real files: a SQLite header and nothing sane
	// after it, read with a plain connection.
	notadb := sqlErrorFrom(t, bad)
	other := sqlErrorOf(t, d, "SELECT * FROM no_such_table")

	tests := []struct {
		name string
		err  error
		code errs.Code
	}{
		{"nil", nil, ""},
		{"not a database", fmt.Errorf("leaves: %w", notadb), errs.CodeDamagedIndex},
		{"no such table", fmt.Errorf("leaves: %w", other), ""},
		{"plain", errors.New("boom"), ""},
		{"already not_index", errs.Wrap(errs.CodeNotIndex, notadb, ""), errs.CodeNotIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify("/x/index.db", tt.err)
			if errs.CodeOf(got) != tt.code {
				t.Fatalf("Classify(%v) = %v, want code %q", tt.err, got, tt.code)
			}
			if tt.code == "" && got != tt.err {
				t.Fatalf("Classify(%v) = %v, want it unchanged", tt.err, got)
			}
			if tt.code == errs.CodeDamagedIndex {
				var je *errs.Error
				errors.As(got, &je)
				if je.Path != "/x/index.db" || je.Hint != DamagedHint || !errors.Is(got, notadb) || strings.Contains(je.Message, "(26)") {
					t.Fatalf("Classify = %+v; want the path, the hint, the cause wrapped, no numeric code in the message", je)
				}
			}
		})
	}
}

// sqlErrorFrom opens path with a plain connection and returns the error of
// reading it.
func sqlErrorFrom(t *testing.T, path string) error {
	t.Helper()
	db, err := sqlx.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return sqlErrorOf(t, &DB{db: &conn{DB: db}, path: path}, "SELECT count(*) FROM sqlite_schema")
}

func sqlErrorOf(t *testing.T, d *DB, q string) error {
	t.Helper()
	var n int
	err := d.db.Get(&n, q)
	if err == nil {
		t.Fatalf("%s succeeded", q)
	}
	return err
}

// A grove index in a directory this user may not write is an io_error
// saying so, not not_index. (A read-only file in a writable directory can
// still be read: SQLite opens it read-only.)
func TestOpen_ReadOnlyIndex(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("skipping: root may write any file")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	path := filepath.Join(dir, "index.db")
	mustOpen(t, path).Close()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	d, err := Open(context.Background(), path)
	if err == nil {
		d.Close()
		t.Fatal("Open of an index in a read-only directory succeeded")
	}
	var je *errs.Error
	if !errors.As(err, &je) || je.Code != errs.CodeIO || !strings.Contains(je.Message, "not writable") || je.Path != path {
		t.Fatalf("Open(read-only) = %v, want io_error saying the index is not writable", err)
	}
}
