package index

import (
	"context"
	"database/sql"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
)

// How one set of queries serves SQLite and PostgreSQL (SPEC §10). Every
// query is written once, in SQLite's form, and conn turns it into
// PostgreSQL's as it is run or prepared (pgSQL), so that index has one code
// path. The few queries that differ more than pgSQL can say are chosen by
// DB.sq.

// conn is the index's database handle: sqlx's, with queries and
// arguments put in PostgreSQL's form when pg is set.
type conn struct {
	*sqlx.DB
	pg bool
}

var pgForms sync.Map // SQLite query text -> PostgreSQL's

// q is query in the form of conn's database.
func (c *conn) q(query string) string {
	if !c.pg {
		return query
	}
	return pgSQL(query)
}

// pgSQL is a SQLite query in PostgreSQL's form, cached by text:
//   - `?N` becomes `$N`, and each bare `?` the next number after the
//     highest so far (SQLite's own rule);
//   - `INDEXED BY name` (a SQLite planner hint) goes;
//   - `CROSS JOIN` (SQLite's way to pin a join order) becomes `JOIN`;
//   - the column `offset`, a reserved word in PostgreSQL, is quoted;
//   - `char(0)`, a separator in text keys, becomes `chr(1)`: PostgreSQL
//     text cannot hold NUL;
//   - `group_concat` is `string_agg`.
//
// String literals and quoted names are copied as they are.
func pgSQL(query string) string {
	if v, ok := pgForms.Load(query); ok {
		return v.(string)
	}
	out := pgConvert(query)
	pgForms.Store(query, out)
	return out
}

// pgConvert is pgSQL without the cache.
func pgConvert(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 16)
	highest := 0
	word := func(i int) (string, int) { // the identifier or keyword at i
		j := i
		for j < len(query) && (isIdentByte(query[j])) {
			j++
		}
		return query[i:j], j
	}
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(query) {
				if query[j] == c {
					if j+1 < len(query) && query[j+1] == c { // '' inside a literal
						j += 2
						continue
					}
					break
				}
				j++
			}
			b.WriteString(query[i:min(j+1, len(query))])
			i = j + 1
		case c == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			if j > i+1 {
				// ?N is $N with N's digits as written; a number too big
				// for an int (which no server takes) must not wrap.
				n, err := strconv.Atoi(query[i+1 : j])
				if err != nil {
					n = math.MaxInt32
				}
				highest = max(highest, n)
				b.WriteString("$" + query[i+1:j])
			} else {
				highest++
				b.WriteString("$" + strconv.Itoa(highest))
			}
			i = j
		case isIdentByte(c) && (i == 0 || !isIdentByte(query[i-1])):
			w, j := word(i)
			switch {
			case w == "INDEXED" && strings.HasPrefix(query[j:], " BY "):
				_, k := word(j + 4)
				i = k // the hint and its index name go; the space before stays
			case w == "CROSS" && strings.HasPrefix(query[j:], " JOIN"):
				i = j + 1 // "JOIN" follows
			case w == "offset":
				b.WriteString(`"offset"`)
				i = j
			case w == "group_concat":
				b.WriteString("string_agg")
				i = j
			case w == "char" && strings.HasPrefix(query[j:], "(0)"):
				b.WriteString("chr(1)")
				i = j + 3
			default:
				b.WriteString(w)
				i = j
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// args is args in the form conn's database takes: PostgreSQL's integer
// columns take no Go bool, so true and false become 1 and 0.
func (c *conn) args(args []any) []any {
	if !c.pg {
		return args
	}
	var out []any
	for i, a := range args {
		if v, ok := a.(bool); ok {
			if out == nil {
				out = append([]any(nil), args...)
			}
			out[i] = boolInt(v)
		}
	}
	if out == nil {
		return args
	}
	return out
}

func boolInt(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

func (c *conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.DB.ExecContext(ctx, c.q(query), c.args(args)...)
}

func (c *conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.DB.QueryContext(ctx, c.q(query), c.args(args)...)
}

func (c *conn) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	return c.DB.QueryRowxContext(ctx, c.q(query), c.args(args)...)
}

func (c *conn) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return c.DB.GetContext(ctx, dest, c.q(query), c.args(args)...)
}

func (c *conn) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return c.DB.SelectContext(ctx, dest, c.q(query), c.args(args)...)
}

func (c *conn) PreparexContext(ctx context.Context, query string) (*sqlx.Stmt, error) {
	return c.DB.PreparexContext(ctx, c.q(query))
}

// sq is the query of d's database where the two differ beyond pgSQL.
func (d *DB) sq(sqlite, postgres string) string {
	if d.db.pg {
		return postgres
	}
	return sqlite
}

// IsServer reports whether the index is in PostgreSQL (SPEC §10): then
// it holds each file's committed bytes, and its sessions are keyed by
// (source, path).
func (d *DB) IsServer() bool { return d.db.pg }
