package ingest_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// mustGroveIndex builds a real grove index of several pages in dir (the pi
// and plain fixtures and a generated 300 KB session), closes it so that its
// WAL is checkpointed into the main file, and returns its path and bytes.
func mustGroveIndex(tb testing.TB, dir string) (string, []byte) {
	tb.Helper()
	ctx := context.Background()
	roots := filepath.Join(dir, "sessions")
	for _, f := range []string{"pi/v1-linear.jsonl", "pi/v2-branches.jsonl", "pi/v3-tree.jsonl", "plain/chapter-tree.jsonl"} {
		testutil.MustCopy(tb, testutil.Testdata(tb, f), roots, filepath.Base(f))
	}
	testutil.MustWriteFile(tb, roots, "big.jsonl", testutil.PiSession(300<<10, 7))
	dbPath := filepath.Join(dir, "index.db")
	a, err := ingest.Open(ctx, dbPath)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{roots}}); err != nil {
		tb.Fatal(err)
	}
	if err := a.Close(); err != nil {
		tb.Fatal(err)
	}
	for _, s := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(dbPath + s); err == nil {
			tb.Fatalf("%s%s is still there after Close: the damage would not be in the main file", dbPath, s)
		}
	}
	b, err := os.ReadFile(dbPath)
	if err != nil {
		tb.Fatal(err)
	}
	if len(b) < 16*4096 {
		tb.Fatalf("the index is %d bytes, want several pages", len(b))
	}
	return dbPath, b
}

// rootPage is the root page number of the table or index name in the
// SQLite file at path.
func rootPage(tb testing.TB, path, name string) int {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = ?", name).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

func garbage(n int, seed int64) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// overwrite returns a copy of b with garbage in [from, to).
func overwrite(b []byte, from, to int) []byte {
	out := bytes.Clone(b)
	copy(out[from:to], garbage(to-from, int64(from)))
	return out
}

// damageCase is one file at the index path and what Open must say of it.
type damageCase struct {
	name string
	make func(t *testing.T, dir string, good []byte) []byte // the file's bytes
	code errs.Code                                          // "" when Open succeeds
	text string                                             // in the error
}

func damageCases(goodPath string) []damageCase {
	return []damageCase{
		{"truncated to half", func(t *testing.T, _ string, good []byte) []byte { return good[:len(good)/2] },
			errs.CodeDamagedIndex, "database disk image is malformed"},
		{"truncated to 100 bytes", func(t *testing.T, _ string, good []byte) []byte { return good[:100] },
			errs.CodeDamagedIndex, "malformed"},
		{"garbage page 2 (sessions)", func(t *testing.T, _ string, good []byte) []byte { return overwrite(good, 4096, 8192) },
			errs.CodeDamagedIndex, "malformed"},
		{"garbage schema", func(t *testing.T, dir string, good []byte) []byte {
			p := testutil.MustWriteFile(t, dir, "schema.db", good)
			mustSQL(t, p, "PRAGMA writable_schema = ON",
				"UPDATE sqlite_schema SET sql = 'CREATE TABLE labels (oops' WHERE name = 'labels'")
			return mustRead(t, p)
		}, errs.CodeDamagedIndex, "malformed database schema"},
		{"missing table", func(t *testing.T, dir string, good []byte) []byte {
			p := testutil.MustWriteFile(t, dir, "drop.db", good)
			mustSQL(t, p, "DROP TABLE labels")
			return mustRead(t, p)
		}, errs.CodeDamagedIndex, "table labels is missing"},
		{"empty file", func(t *testing.T, _ string, good []byte) []byte { return nil }, "", ""},
		{"truncated to 99 bytes", func(t *testing.T, _ string, good []byte) []byte { return good[:99] },
			errs.CodeNotIndex, "not a SQLite database"},
		{"garbage from byte 0", func(t *testing.T, _ string, good []byte) []byte { return overwrite(good, 0, 4096) },
			errs.CodeNotIndex, "not a SQLite database"},
		{"plain text", func(t *testing.T, _ string, good []byte) []byte {
			return bytes.Repeat([]byte("not a database at all\n"), 300)
		}, errs.CodeNotIndex, "not a SQLite database"},
		{"foreign SQLite", func(t *testing.T, dir string, _ []byte) []byte {
			p := filepath.Join(dir, "foreign.db")
			mustSQL(t, p, "CREATE TABLE notes (x TEXT)", "INSERT INTO notes VALUES ('mine')")
			return mustRead(t, p)
		}, errs.CodeNotIndex, "application id 0x0"},
		{"foreign SQLite in WAL mode", func(t *testing.T, dir string, _ []byte) []byte {
			p := filepath.Join(dir, "wal.db")
			mustSQL(t, p, "PRAGMA journal_mode = WAL", "CREATE TABLE notes (x TEXT)")
			return mustRead(t, p)
		}, errs.CodeNotIndex, "not a grove index"},
		{"foreign SQLite, no tables", func(t *testing.T, dir string, _ []byte) []byte {
			p := filepath.Join(dir, "bare.db")
			mustSQL(t, p, "PRAGMA user_version = 1")
			return mustRead(t, p)
		}, errs.CodeNotIndex, "not a grove index"},
		{"other application id", func(t *testing.T, dir string, _ []byte) []byte {
			p := filepath.Join(dir, "other.db")
			mustSQL(t, p, "PRAGMA application_id = 42", "CREATE TABLE sessions (x)")
			return mustRead(t, p)
		}, errs.CodeNotIndex, "application id 0x2a"},
		{"newer schema", func(t *testing.T, dir string, good []byte) []byte {
			p := testutil.MustWriteFile(t, dir, "newer.db", good)
			mustSQL(t, p, "PRAGMA user_version = 99")
			return mustRead(t, p)
		}, errs.CodeNewerIndex, "schema version 99"},
		{"newer schema, damaged", func(t *testing.T, dir string, good []byte) []byte {
			p := testutil.MustWriteFile(t, dir, "newer2.db", good)
			mustSQL(t, p, "PRAGMA user_version = 99", "DROP TABLE labels")
			return mustRead(t, p)
		}, errs.CodeNewerIndex, "schema version 99"},
	}
}

// backups lists the index files set aside beside dbPath (not their
// sidecars).
func backups(tb testing.TB, dbPath string) []string {
	tb.Helper()
	m, err := filepath.Glob(dbPath + ".damaged-*")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, f := range m {
		if !strings.HasSuffix(f, "-wal") && !strings.HasSuffix(f, "-shm") && !strings.HasSuffix(f, "-journal") {
			out = append(out, f)
		}
	}
	return out
}

// leftoverWAL is what a crashed writer might leave in -wal: not a valid WAL
// header, so SQLite ignores it, but it belongs to the index and must move
// with it.
const leftoverWAL = "leftover bytes of a WAL, not a valid header\n"

// Every kind of file at the index path is classified before SQLite writes
// to it: damaged grove indexes are damaged_index, files not provably grove's
// are not_index, a newer grove's is newer_index; the last two are never
// changed, whether opened to read or to write.
func TestOpen_DamagedAndForeignFiles(t *testing.T) {
	ctx := context.Background()
	goodPath, good := mustGroveIndex(t, t.TempDir())
	for _, tt := range damageCases(goodPath) {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			dbPath := testutil.MustWriteFile(t, dir, "index.db", tt.make(t, t.TempDir(), good))
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(dbPath, old, old); err != nil {
				t.Fatal(err)
			}
			before := mustRead(t, dbPath)
			if tt.code == errs.CodeDamagedIndex {
				testutil.MustWriteFile(t, dir, "index.db-wal", []byte(leftoverWAL))
			}

			a, err := ingest.Open(ctx, dbPath)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("Open(%s) = %v, want a new index", tt.name, err)
				}
				a.Close()
				return
			}
			if err == nil {
				a.Close()
				t.Fatalf("Open(%s) succeeded, want %s", tt.name, tt.code)
			}
			var je *errs.Error
			if !errors.As(err, &je) || je.Code != tt.code || je.Path != dbPath || !strings.Contains(je.Message, tt.text) {
				t.Fatalf("Open(%s) = %v, want %s naming %s, containing %q", tt.name, err, tt.code, dbPath, tt.text)
			}
			if tt.code == errs.CodeDamagedIndex && !strings.Contains(je.Hint, "grove rebuild") {
				t.Errorf("Open(%s) hint = %q, want it to name grove rebuild", tt.name, je.Hint)
			}
			if got := mustRead(t, dbPath); !bytes.Equal(got, before) {
				t.Fatalf("Open(%s) changed the file", tt.name)
			}

			var warned []string
			a, err = ingest.OpenForWrite(ctx, dbPath, func(m string) { warned = append(warned, m) })
			if tt.code != errs.CodeDamagedIndex {
				if errs.CodeOf(err) != tt.code {
					t.Fatalf("OpenForWrite(%s) = %v, want %s", tt.name, err, tt.code)
				}
				fi, _ := os.Stat(dbPath)
				if got := mustRead(t, dbPath); !bytes.Equal(got, before) || !fi.ModTime().Equal(old) {
					t.Fatalf("OpenForWrite(%s) changed the file (mtime %v, was %v)", tt.name, fi.ModTime(), old)
				}
				if b := backups(t, dbPath); len(b) > 0 || len(warned) > 0 {
					t.Fatalf("OpenForWrite(%s) set aside %v, warned %q; want nothing moved", tt.name, b, warned)
				}
				if tt.code == errs.CodeNotIndex {
					for _, s := range []string{"-wal", "-shm", "-journal"} {
						if _, err := os.Stat(dbPath + s); err == nil {
							t.Errorf("OpenForWrite(%s) made %s%s: SQLite opened a foreign file", tt.name, dbPath, s)
						}
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("OpenForWrite(%s) = %v, want a new index", tt.name, err)
			}
			defer a.Close()
			b := backups(t, dbPath)
			if len(b) != 1 {
				t.Fatalf("OpenForWrite(%s) left backups %v, want one", tt.name, b)
			}
			if got := mustRead(t, b[0]); !bytes.Equal(got, before) {
				t.Errorf("backup %s differs from the damaged file", b[0])
			}
			if got, _ := os.ReadFile(b[0] + "-wal"); string(got) != leftoverWAL {
				t.Errorf("%s-wal = %q, want the index's -wal, moved with it", b[0], got)
			}
			if len(warned) != 1 || !strings.Contains(warned[0], b[0]) || !strings.Contains(warned[0], dbPath) || !strings.Contains(warned[0], tt.text) {
				t.Errorf("OpenForWrite(%s) warned %q, want one line naming %s, %s and %q", tt.name, warned, dbPath, b[0], tt.text)
			}
			sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{filepath.Join(filepath.Dir(goodPath), "sessions")}})
			if err != nil || sum.Indexed != 5 {
				t.Fatalf("Index on the new index = %+v, %v; want 5 files indexed", sum, err)
			}
			if hits, err := search(ctx, a, "tests", 5); err != nil || len(hits.Hits) == 0 {
				t.Fatalf("Search on the new index = %v, %v; want hits", hits, err)
			}
		})
	}
}

// A damaged page deeper than Open looks (here the root of the index the
// path query walks) is found by a query: index.Classify makes it
// damaged_index. Index meets it too, sets the file aside with a note
// naming the backup, and indexes into a new one.
func TestIndex_SetsAsideDamageFoundOnTheWay(t *testing.T) {
	ctx := context.Background()
	goodPath, good := mustGroveIndex(t, t.TempDir())
	page := rootPage(t, goodPath, "entries_by_id")
	dir := t.TempDir()
	dbPath := testutil.MustWriteFile(t, dir, "index.db", overwrite(good, (page-1)*4096, page*4096))
	if err := os.Chmod(dbPath, 0o600); err != nil { // as grove made it: no note on its mode
		t.Fatal(err)
	}
	damagedBytes := mustRead(t, dbPath)

	var warned []string
	a, err := ingest.OpenForWrite(ctx, dbPath, func(m string) { warned = append(warned, m) })
	if err != nil {
		t.Fatalf("OpenForWrite = %v, want the index opened (its sessions table is intact)", err)
	}
	defer a.Close()
	if len(warned) != 0 {
		t.Fatalf("OpenForWrite warned %q; the damage is not where Open looks", warned)
	}
	if _, err := sessionsOf(ctx, a); err != nil {
		t.Fatalf("Sessions = %v, want an answer", err)
	}
	_, err = pathOf(ctx, a, "chapter-tree", "meta-cwd")
	if err == nil {
		t.Fatalf("Path over a damaged index succeeded")
	}
	err = index.Classify(dbPath, err)
	var je *errs.Error
	if !errors.As(err, &je) || je.Code != errs.CodeDamagedIndex || je.Path != dbPath || !strings.Contains(je.Hint, "grove rebuild") {
		t.Fatalf("Classify(Path's error) = %v, want damaged_index naming %s with a grove rebuild hint", err, dbPath)
	}

	if _, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{filepath.Join(filepath.Dir(goodPath), "sessions")}, Force: true}); err != nil {
		t.Fatal(err)
	}
	b := backups(t, dbPath)
	if len(b) != 1 || !bytes.Equal(mustRead(t, b[0]), damagedBytes) {
		t.Fatalf("backups %v, want one holding the damaged bytes", b)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], b[0]) {
		t.Fatalf("warned %q, want one line naming %s", warned, b[0])
	}
	if p, err := pathOf(ctx, a, "chapter-tree", "meta-cwd"); err != nil || len(p.Entries) != 5 {
		t.Fatalf("Path on the new index = %v, want 5 entries", err)
	}
}
