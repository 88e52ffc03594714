package scratch

import (
	"testing"
	"github.com/jmoiron/sqlx"
	"github.com/grove-sessions/grove/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestX(t *testing.T) {
	db := sqlx.MustOpen("pgx", pgtest.DB(t))
	db.MustExec("CREATE TABLE t (i integer, b bigint, s text)")
	_, err := db.Exec("INSERT INTO t VALUES ($1, $2, $3)", true, uint32(4000000000), "x")
	t.Log("bool into int:", err)
	_, err = db.Exec("INSERT INTO t VALUES ($1, $2, $3)", 1, uint32(4000000000), "x")
	t.Log("int:", err)
	var b bool
	t.Log("int into bool:", db.Get(&b, "SELECT i FROM t LIMIT 1"), b)
	var n int
	t.Log("exists into int:", db.Get(&n, "SELECT EXISTS (SELECT 1 FROM t)"), n)
	var u uint32
	t.Log("bigint into uint32:", db.Get(&u, "SELECT b FROM t LIMIT 1"), u)
	t.Log("sum:", db.Get(&n, "SELECT sum(i) FROM t"), n)
	t.Log("sum bigint:", db.Get(&n, "SELECT sum(b) FROM t"), n)
	var s string
	t.Log("concat:", db.Get(&s, "SELECT s || chr(1) || b || chr(1) || coalesce(b::text, '') FROM t LIMIT 1"), s)
	t.Log("bool param cond:", db.Get(&n, "SELECT count(*) FROM t WHERE i = 1 AND $1", true), n)
	t.Log("int <= bool:", db.Get(&n, "SELECT count(*) FROM t WHERE i <= $1", true), n)
	var bs []byte
	t.Log("bytea:", db.Get(&bs, "SELECT $1::bytea", []byte("ab\x00c")), bs)
}
