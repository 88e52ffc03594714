package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// wtx is a write transaction whose statements are prepared once per
// connection and kept: indexing 10,000 small files runs the same dozen
// statements 10,000 times, and parsing them cost more than running them.
type wtx struct {
	d     *DB
	tx    *sqlx.Tx
	stmts map[string]*sqlx.Stmt // tx-bound forms of d's write statements
}

// beginWrite begins a write transaction. It is not bound to ctx (which
// would roll it back when ctx ends): a run stopped by Ctrl-C commits the
// files it finished. Each statement still honours its own context.
func (d *DB) beginWrite(ctx context.Context) (*wtx, error) {
	tx, err := d.db.BeginTxx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return nil, err
	}
	return &wtx{d: d, tx: tx, stmts: map[string]*sqlx.Stmt{}}, nil
}

// writeStmt returns q prepared on d; unlike stmt's cache, this one is
// never emptied: write statements are few and fixed.
func (d *DB) writeStmt(ctx context.Context, q string) (*sqlx.Stmt, error) {
	return d.cachedStmt(ctx, &d.wstmts, q, 0)
}

func (t *wtx) prep(ctx context.Context, q string) (*sqlx.Stmt, error) {
	if st, ok := t.stmts[q]; ok {
		return st, nil
	}
	base, err := t.d.writeStmt(ctx, q)
	if err != nil {
		return nil, err
	}
	st := t.tx.StmtxContext(ctx, base)
	t.stmts[q] = st
	return st, nil
}

// ExecContext, GetContext, SelectContext and NamedExecContext are sqlx's,
// through statements prepared once (prep).
func (t *wtx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := t.prep(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, t.d.db.args(args)...)
}

func (t *wtx) GetContext(ctx context.Context, dest any, q string, args ...any) error {
	st, err := t.prep(ctx, q)
	if err != nil {
		return err
	}
	return st.GetContext(ctx, dest, t.d.db.args(args)...)
}

func (t *wtx) SelectContext(ctx context.Context, dest any, q string, args ...any) error {
	st, err := t.prep(ctx, q)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, t.d.db.args(args)...)
}

func (t *wtx) NamedExecContext(ctx context.Context, q string, arg any) (sql.Result, error) {
	bound, args, err := sqlx.Named(q, arg)
	if err != nil {
		return nil, err
	}
	return t.ExecContext(ctx, bound, args...)
}

func (t *wtx) Commit() error { return t.tx.Commit() }
func (t *wtx) Rollback()     { t.tx.Rollback() }

// insertChunks are the row counts of the multi-row INSERT statements
// insertRows prepares: every n is a sum of them, so that a few cached
// statements serve any number of rows.
var insertChunks = []int{8192, 2048, 512, 128, 32, 8, 1}

// insertRows inserts n rows into table; row(i) gives the values of row i
// in the order of cols. At most maxParams values are bound per statement.
func insertRows(ctx context.Context, t *wtx, table string, cols []string, n int, row func(i int) []any) error {
	return insertRowsAs(ctx, t, table, cols, nil, n, row)
}

// insertRowsAs is insertRows with the value expression of each column
// given ("?" for one left ""; nil: all "?"), for a value the driver binds
// as another type than the column's.
func insertRowsAs(ctx context.Context, t *wtx, table string, cols, exprs []string, n int, row func(i int) []any) error {
	places := make([]string, len(cols))
	for i := range places {
		places[i] = "?"
		if i < len(exprs) && exprs[i] != "" {
			places[i] = exprs[i]
		}
	}
	one := "(" + strings.Join(places, ",") + ")"
	head := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES "
	var args []any
	for start := 0; start < n; {
		chunk := 1
		for _, c := range insertChunks {
			if c <= n-start && c*len(cols) <= maxParams {
				chunk = c
				break
			}
		}
		args = args[:0]
		for i := start; i < start+chunk; i++ {
			args = append(args, row(i)...)
		}
		if _, err := t.ExecContext(ctx, head+strings.TrimSuffix(strings.Repeat(one+",", chunk), ","), args...); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		start += chunk
	}
	return nil
}
