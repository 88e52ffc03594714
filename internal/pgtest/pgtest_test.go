package pgtest

import (
	"database/sql"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestDB checks that two databases of the cluster are separate and that
// the server collates text byte-wise, as SQLite does.
func TestDB(t *testing.T) {
	a, b := DB(t), DB(t)
	if a == b {
		t.Fatalf("two DB calls gave one database %s", a)
	}
	da, err := sql.Open("pgx", a)
	if err != nil {
		t.Fatal(err)
	}
	defer da.Close()
	if _, err := da.Exec("CREATE TABLE x (v text)"); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", b)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("database %s sees the table of %s: n=%d err=%v", b, a, n, err)
	}
	var first string
	if err := da.QueryRow("SELECT v FROM (VALUES ('a'), ('B'), ('_')) t(v) ORDER BY v LIMIT 1").Scan(&first); err != nil || first != "B" {
		t.Fatalf("first of a, B, _ = %q (err %v), want B (byte order)", first, err)
	}
}
