package index

import (
	"bufio"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// ErrDumpServer is returned by Dump and DumpFile for a PostgreSQL index:
// the dump reads SQLite's schema tables and its full-text index through
// fts5vocab, which PostgreSQL has neither of.
var ErrDumpServer = errors.New("dump: only a SQLite index file can be dumped, not a PostgreSQL database")

// DumpOptions are the choices of DumpFile.
type DumpOptions struct {
	// Omit names further columns to leave out, as TABLE.COLUMN or
	// *.COLUMN (a column only one of two builds has); "token.*" leaves
	// out the search text's tokens.
	Omit []string
}

// dumpOmit are the columns left out of every dump: what depends on how,
// when or in which order the files were indexed. "*.sid" is every table's
// session row id, replaced by the session's path; a diagnostic's seq
// numbers it among its session's in the order they were found, which an
// append continues from where the last read stopped.
var dumpOmit = []string{"*.sid", "sessions.indexed_at_ms", "sessions.stat_key", "diagnostics.seq"}

// dumpSkipTables are tables never dumped: the doc counter depends on the
// order files were indexed in.
var dumpSkipTables = []string{"counters"}

// dumpTags name a table's lines; a table not listed is named by itself.
var dumpTags = map[string]string{"sessions": "session", "entries": "entry", "diagnostics": "diagnostic", "labels": "label", "sources": "source"}

// Dump writes the index's canonical dump to out (the shape is DumpFile's,
// with no column left out beyond the built-in ones), for comparing two
// indexes of the same files: an index refreshed incrementally, rebuilt or
// recovered after a crash must dump as a clean build does (docs/indexing.md
// "Keeping the index current", "Crashes"). One read transaction: one
// snapshot of every table. Errors: ErrDumpServer for a PostgreSQL index;
// a failed query.
func (d *DB) Dump(ctx context.Context, out io.Writer) error {
	if d.db.pg {
		return ErrDumpServer
	}
	conn, err := d.db.Connx(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return dump(ctx, conn, out, nil)
}

// DumpFile writes the canonical dump of the SQLite index file at path to
// out. The file is opened read-only: never migrated, never checkpointed,
// so the index of an older or a newer grove is dumped as it is; tables and
// columns are read from its schema, so a column or table one schema adds
// is dumped without a change here.
//
// The dump is one line per row, sorted within each table, then the
// search text's tokens:
//
//	session path="…" <column>=<value> ...
//	entry "<path>" seq=<n> <column>=<value> ...
//	<tag> "<path>" <column>=<value> ...   (every other table with a sid)
//	source kind=… path=…                  (a table without one)
//	token "<term>" "<path>" <seq> <column> <offset>
//
// Tables are those of the schema in name order (sqlite_*, the FTS5
// tables' shadow tables and the doc counter left out), each line tagged
// with the table's singular (session, entry, diagnostic, label, source;
// another table by its own name). A table with a sid is keyed by its
// session's path (an orphan row by "orphan-sid"), its rows sorted by path,
// then its primary key, then every other column. Left out: row ids,
// sessions.indexed_at_ms and sessions.stat_key, diagnostics.seq, and
// o.Omit. A doc column
// (entries.doc, the entry's rowid in the search text) is printed as
// doc_seconds, the doc number's seconds (doc >> 31), which search order
// depends on: the numbers themselves depend on build order. Values are Go
// literals: strings quoted (a line never holds a raw newline), NULL,
// numbers as they are, blobs as x'hex'.
//
// Tokens are read from every FTS5 table through an fts5vocab 'instance'
// table made in the TEMP schema (term, doc, column, offset); each doc is
// mapped to (path, seq) through entries.doc, a doc under no entry listed
// as path "orphan-doc" with the doc number as its seq. The tokens of all
// FTS5 tables are merged into one list without the table's name (one
// table and shards of it dump alike), sorted by term (bytes), then path,
// seq, column and offset: term first because fts5vocab gives instances in
// term order, so only one term's instances are sorted at a time and the
// dump streams at any size (about 12 bytes of dump per byte of JSONL).
//
// Errors: ErrDumpServer for a PostgreSQL URL; the file's own error when it
// cannot be read; a wrapped error naming path when it is not a SQLite
// database or a query failed.
func DumpFile(ctx context.Context, path string, out io.Writer, o DumpOptions) error {
	if IsURL(path) {
		return ErrDumpServer
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return err
	}
	db, err := sqlx.Open("sqlite", "file:"+uriEscaper.Replace(abs)+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer db.Close()
	conn, err := db.Connx(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer conn.Close()
	if err := dump(ctx, conn, out, o.Omit); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// dump writes the dump of the database conn reads (see DumpFile) in one
// read transaction.
func dump(ctx context.Context, conn *sqlx.Conn, out io.Writer, omit []string) error {
	// TEMP tables can be made inside a read transaction, and in a
	// read-only connection.
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	var tables []struct {
		Name string         `db:"name"`
		SQL  sql.NullString `db:"sql"`
	}
	if err := conn.SelectContext(ctx, &tables, `SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`); err != nil {
		return fmt.Errorf("dump: not a SQLite index: %w", err)
	}
	var fts []string
	for _, t := range tables {
		if isFTS5(t.SQL.String) {
			fts = append(fts, t.Name)
		}
	}
	omitted := append(slices.Clone(dumpOmit), omit...)
	w := bufio.NewWriterSize(out, 1<<20)
	for _, t := range tables {
		if isFTS5(t.SQL.String) || slices.Contains(dumpSkipTables, t.Name) || isShadow(t.Name, fts) {
			continue
		}
		if err := dumpTable(ctx, conn, w, t.Name, omitted); err != nil {
			return fmt.Errorf("dump: table %s: %w", t.Name, err)
		}
	}
	if err := dumpTokens(ctx, conn, w, fts, omitted); err != nil {
		return fmt.Errorf("dump: search text: %w", err)
	}
	return w.Flush()
}

func isFTS5(create string) bool {
	s := strings.ToLower(create)
	return strings.HasPrefix(s, "create virtual table") && strings.Contains(s, "using fts5") && !strings.Contains(s, "using fts5vocab")
}

// isShadow reports whether name is one of an FTS5 table's own tables
// (entry_text_data, _idx, _content, _docsize, _config).
func isShadow(name string, fts []string) bool {
	for _, f := range fts {
		if rest, ok := strings.CutPrefix(name, f+"_"); ok && slices.Contains([]string{"data", "idx", "content", "docsize", "config"}, rest) {
			return true
		}
	}
	return false
}

func omits(omit []string, table, column string) bool {
	return slices.Contains(omit, table+"."+column) || slices.Contains(omit, "*."+column)
}

// dumpColumn is one row of pragma_table_info.
type dumpColumn struct {
	Name string `db:"name"`
	PK   int    `db:"pk"` // the column's place in the primary key, from 1; 0 when not in it
}

// dumpTable writes the lines of one table (see DumpFile).
func dumpTable(ctx context.Context, conn *sqlx.Conn, w *bufio.Writer, table string, omit []string) error {
	var cols []dumpColumn
	if err := conn.SelectContext(ctx, &cols, "SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", table); err != nil {
		return err
	}
	keyed := table != "sessions" && slices.ContainsFunc(cols, func(c dumpColumn) bool { return c.Name == "sid" })
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	var names, exprs, order []string
	if keyed {
		names, exprs = append(names, ""), append(exprs, "coalesce(s.path, 'orphan-sid')")
		order = append(order, "1")
	}
	// The primary key first (in key order), then the rest in schema order.
	slices.SortStableFunc(cols, func(a, b dumpColumn) int {
		if (a.PK == 0) != (b.PK == 0) {
			if a.PK == 0 {
				return 1
			}
			return -1
		}
		return a.PK - b.PK
	})
	for _, c := range cols {
		name, expr := c.Name, "t."+q(c.Name)
		if c.Name == "doc" {
			name, expr = "doc_seconds", "(t.doc >> 31)"
		}
		if omits(omit, table, c.Name) || omits(omit, table, name) {
			continue
		}
		names, exprs = append(names, name), append(exprs, expr)
		order = append(order, strconv.Itoa(len(exprs)))
	}
	if len(exprs) == 0 {
		return nil
	}
	query := "SELECT " + strings.Join(exprs, ", ") + " FROM " + q(table) + " t"
	if keyed {
		query += " LEFT JOIN sessions s ON s.sid = t.sid"
	}
	query += " ORDER BY " + strings.Join(order, ", ")
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	tag := table
	if t, ok := dumpTags[table]; ok {
		tag = t
	}
	vals := make([]any, len(exprs))
	ptrs := make([]any, len(exprs))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		w.WriteString(tag)
		for i, v := range vals {
			w.WriteByte(' ')
			if names[i] != "" {
				w.WriteString(names[i])
				w.WriteByte('=')
			}
			w.WriteString(literal(v))
		}
		w.WriteByte('\n')
	}
	return rows.Err()
}

// literal prints one column value: a string quoted, a number as it is,
// NULL, a blob as x'hex'.
func literal(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return strconv.Quote(x)
	case []byte:
		return fmt.Sprintf("x'%x'", x)
	case bool:
		if x {
			return "1"
		}
		return "0"
	default:
		return strconv.Quote(fmt.Sprint(x))
	}
}

// Where a doc number's text belongs: the rank of its session's path among
// all paths, and the entry's seq. Rank -1 is an entry of no session
// ("orphan-sid"), -2 a doc of no entry ("orphan-doc", seq the doc).
type docKey struct{ rank, seq int64 }

const (
	rankOrphanSID = -1
	rankOrphanDoc = -2
)

// instance is one token instance of one term.
type instance struct {
	key      docKey
	col      string
	off, doc int64
}

// dumpTokens writes the token lines of every FTS5 table in fts, merged by
// term, each term's instances sorted by (path, seq, column, offset).
func dumpTokens(ctx context.Context, conn *sqlx.Conn, w *bufio.Writer, fts []string, omit []string) error {
	if len(fts) == 0 || omits(omit, "token", "*") {
		return nil
	}
	paths, docs, err := docKeys(ctx, conn)
	if err != nil {
		return err
	}
	// One cursor per FTS5 table, each in term order; the next term is the
	// least of their current ones.
	type cursor struct {
		rows *sql.Rows
		term string
		inst instance
		ok   bool
	}
	next := func(c *cursor) error {
		c.ok = c.rows.Next()
		if !c.ok {
			return c.rows.Err()
		}
		return c.rows.Scan(&c.term, &c.inst.doc, &c.inst.col, &c.inst.off)
	}
	var cs []*cursor
	defer func() {
		for _, c := range cs {
			c.rows.Close()
		}
	}()
	for i, f := range fts {
		v := fmt.Sprintf("grove_dump_vocab_%d", i)
		if _, err := conn.ExecContext(ctx, fmt.Sprintf(`CREATE VIRTUAL TABLE temp.%s USING fts5vocab(main, "%s", instance)`, v, strings.ReplaceAll(f, `"`, `""`))); err != nil {
			return err
		}
		defer conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS temp."+v)
		r, err := conn.QueryContext(ctx, fmt.Sprintf(`SELECT term, doc, col, "offset" FROM temp.%s`, v))
		if err != nil {
			return err
		}
		c := &cursor{rows: r}
		cs = append(cs, c)
		if err := next(c); err != nil {
			return err
		}
	}
	var group []instance
	for {
		term, found := "", false
		for _, c := range cs {
			if c.ok && (!found || c.term < term) {
				term, found = c.term, true
			}
		}
		if !found {
			return nil
		}
		group = group[:0]
		for _, c := range cs {
			for c.ok && c.term == term {
				keys, ok := docs[c.inst.doc]
				if !ok {
					keys = []docKey{{rankOrphanDoc, c.inst.doc}}
				}
				for _, k := range keys {
					in := c.inst
					in.key = k
					group = append(group, in)
				}
				if err := next(c); err != nil {
					return err
				}
			}
		}
		slices.SortFunc(group, func(a, b instance) int {
			switch {
			case a.key.rank != b.key.rank:
				return cmp.Compare(a.key.rank, b.key.rank)
			case a.key.seq != b.key.seq:
				return cmp.Compare(a.key.seq, b.key.seq)
			case a.col != b.col:
				return strings.Compare(a.col, b.col)
			}
			return cmp.Compare(a.off, b.off)
		})
		qt := strconv.Quote(term)
		for _, in := range group {
			path := "orphan-doc"
			switch {
			case in.key.rank >= 0:
				path = paths[in.key.rank]
			case in.key.rank == rankOrphanSID:
				path = "orphan-sid"
			}
			fmt.Fprintf(w, "token %s %s %d %s %d\n", qt, strconv.Quote(path), in.key.seq, in.col, in.off)
		}
	}
}

// docKeys reads the sessions' paths in order and where each doc number
// belongs (several entries may share one).
func docKeys(ctx context.Context, conn *sqlx.Conn) ([]string, map[int64][]docKey, error) {
	var paths []string
	rank := map[int64]int64{}
	rows, err := conn.QueryContext(ctx, "SELECT sid, path FROM sessions ORDER BY path")
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var sid int64
		var path string
		if err := rows.Scan(&sid, &path); err != nil {
			rows.Close()
			return nil, nil, err
		}
		rank[sid] = int64(len(paths))
		paths = append(paths, path)
	}
	if err := rows.Close(); err != nil {
		return nil, nil, err
	}
	docs := map[int64][]docKey{}
	rows, err = conn.QueryContext(ctx, "SELECT doc, sid, seq FROM entries")
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var doc, sid, seq int64
		if err := rows.Scan(&doc, &sid, &seq); err != nil {
			return nil, nil, err
		}
		r, ok := rank[sid]
		if !ok {
			r = rankOrphanSID
		}
		docs[doc] = append(docs[doc], docKey{r, seq})
	}
	return paths, docs, rows.Err()
}
