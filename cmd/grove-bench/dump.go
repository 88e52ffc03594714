package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// The index dump (issue 16, Measure: "the same query answers as before on
// the same corpus"): a canonical text form of an index file that does not
// depend on how, in which order or by which grove it was built, so that
// two indexes of the same files built two ways can be compared with cmp.
//
// Unlike index.DB.Dump it reads the file through a read-only connection
// (no migration, no checkpoint: the file of an older or newer grove is
// dumped as it is) and finds the tables and columns from the schema, so
// that a layout the lead adds (a column, a table, search text split over
// several FTS5 tables) is dumped without a change here.

// dumpOmit are the columns left out of every dump: row ids and what
// depends on when a file was indexed. "*.sid" is every table's sid, which
// is replaced by the session's path.
var dumpOmit = []string{"*.sid", "sessions.indexed_at_ms", "sessions.stat_key"}

// dumpSkipTables are tables not dumped: the doc counter depends on the
// order files were indexed in.
var dumpSkipTables = []string{"counters"}

// dumpIndex writes the dump of the index file db to out, one line per
// row, sorted within each table:
//
//	<table> [<path>] <column>=<value> ...
//	token <term> <path> <seq> <column> <offset>
//
// Tables are those of the schema in name order (sqlite_*, the FTS5 tables'
// shadow tables and dumpSkipTables left out); a table with a sid column
// is keyed by its session's path (an orphan row by "orphan-sid"), its rows
// sorted by path, then its primary key, then every other column. A doc
// column (entries.doc, the entry's rowid in the search text) is replaced by
// doc_seconds, the doc number's seconds (doc >> 31), which search order
// depends on: doc numbers themselves depend on build order. Values are
// printed as Go literals: strings quoted, NULL as NULL, blobs as x'hex'.
//
// The search text is dumped as tokens: for every FTS5 table, an fts5vocab
// 'instance' table created in the TEMP schema (term, doc, col, offset),
// each doc mapped to (path, seq) through entries.doc; the tokens of all
// FTS5 tables are merged into one list without the table's name, so one
// table and shards of it dump alike, sorted by term (bytes), then path,
// seq, column and offset. A doc under no entry is listed as path
// "orphan-doc" with the doc number as its seq. Term first because
// fts5vocab gives instances in term order: only one term's instances are
// sorted at a time (a sort of every token by path took 80 % of the dump).
//
// omit names further columns to leave out, as table.column or *.column
// (a column one build has and the other has not). Errors: the file cannot
// be opened read-only or is not an SQLite file; a query failed.
func dumpIndex(ctx context.Context, db string, out io.Writer, omit []string) error {
	abs, err := filepath.Abs(db)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return err
	}
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	d, err := sqlx.Open("sqlite", "file:"+esc.Replace(abs)+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		return err
	}
	defer d.Close()
	conn, err := d.Connx(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// One read transaction: one snapshot for every table. TEMP tables
	// can be made in a read-only connection.
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("%s: %w", db, err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	var tables []struct {
		Name string         `db:"name"`
		SQL  sql.NullString `db:"sql"`
	}
	if err := conn.SelectContext(ctx, &tables, `SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`); err != nil {
		return fmt.Errorf("%s: not an index grove-bench can read: %w", db, err)
	}
	var fts []string
	for _, t := range tables {
		if isFTS5(t.SQL.String) {
			fts = append(fts, t.Name)
		}
	}
	omitted := append(append([]string(nil), dumpOmit...), omit...)
	w := bufio.NewWriterSize(out, 1<<20)
	for _, t := range tables {
		if isFTS5(t.SQL.String) || slices.Contains(dumpSkipTables, t.Name) || isShadow(t.Name, fts) {
			continue
		}
		if err := dumpTable(ctx, conn, w, t.Name, omitted); err != nil {
			return fmt.Errorf("%s: table %s: %w", db, t.Name, err)
		}
	}
	if err := dumpTokens(ctx, conn, w, fts, omitted); err != nil {
		return fmt.Errorf("%s: search text: %w", db, err)
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

type columnInfo struct {
	CID     int            `db:"cid"`
	Name    string         `db:"name"`
	Type    string         `db:"type"`
	NotNull int            `db:"notnull"`
	Default sql.NullString `db:"dflt_value"`
	PK      int            `db:"pk"`
}

func dumpTable(ctx context.Context, conn *sqlx.Conn, w *bufio.Writer, table string, omit []string) error {
	var cols []columnInfo
	if err := conn.SelectContext(ctx, &cols, "SELECT cid, name, type, `notnull`, dflt_value, pk FROM pragma_table_info(?)", table); err != nil {
		return err
	}
	hasSID := slices.ContainsFunc(cols, func(c columnInfo) bool { return c.Name == "sid" })
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	var names, exprs, order []string
	if hasSID && table != "sessions" {
		names, exprs = append(names, ""), append(exprs, "coalesce(s.path, 'orphan-sid')")
		order = append(order, "1")
	}
	// The primary key first (in key order), then the rest in schema order.
	pk := slices.Clone(cols)
	slices.SortStableFunc(pk, func(a, b columnInfo) int {
		if (a.PK == 0) != (b.PK == 0) {
			if a.PK == 0 {
				return 1
			}
			return -1
		}
		return a.PK - b.PK
	})
	for _, c := range pk {
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
	if hasSID && table != "sessions" {
		query += " LEFT JOIN sessions s ON s.sid = t.sid"
	}
	query += " ORDER BY " + strings.Join(order, ", ")
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(exprs))
	ptrs := make([]any, len(exprs))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		w.WriteString(table)
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

// literal prints one column value: a string quoted (so that a line never
// holds a raw newline), a number as it is, NULL, a blob as x'hex'.
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

// docKey is where a doc number's text belongs: the rank of its session's
// path among all paths, and the entry's seq.
type docKey struct{ rank, seq int64 }

// instance is one token instance of one term.
type instance struct {
	key      docKey
	col      string
	off, doc int64
}

// dumpTokens writes the token lines of every FTS5 table in fts, merged
// by term; each term's instances sorted by (path, seq, column, offset).
func dumpTokens(ctx context.Context, conn *sqlx.Conn, w *bufio.Writer, fts []string, omit []string) error {
	if len(fts) == 0 || omits(omit, "token", "*") {
		return nil
	}
	var paths []string
	rank := map[int64]int64{}
	rows, err := conn.QueryContext(ctx, "SELECT sid, path FROM sessions ORDER BY path")
	if err != nil {
		return err
	}
	for rows.Next() {
		var sid int64
		var path string
		if err := rows.Scan(&sid, &path); err != nil {
			rows.Close()
			return err
		}
		rank[sid] = int64(len(paths))
		paths = append(paths, path)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	docs := map[int64][]docKey{}
	rows, err = conn.QueryContext(ctx, "SELECT doc, sid, seq FROM entries")
	if err != nil {
		return err
	}
	for rows.Next() {
		var doc, sid, seq int64
		if err := rows.Scan(&doc, &sid, &seq); err != nil {
			rows.Close()
			return err
		}
		r, ok := rank[sid]
		if !ok {
			r = -1 // an entry of no session: "orphan-sid" in the entries lines
		}
		docs[doc] = append(docs[doc], docKey{r, seq})
	}
	if err := rows.Close(); err != nil {
		return err
	}
	// One cursor per FTS5 table, each in term order; the next term is
	// the least of their current ones.
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
		v := fmt.Sprintf("grove_bench_vocab_%d", i)
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
		term, any := "", false
		for _, c := range cs {
			if c.ok && (!any || c.term < term) {
				term, any = c.term, true
			}
		}
		if !any {
			return nil
		}
		group = group[:0]
		for _, c := range cs {
			for c.ok && c.term == term {
				if keys, ok := docs[c.inst.doc]; ok {
					for _, k := range keys {
						in := c.inst
						in.key = k
						group = append(group, in)
					}
				} else {
					in := c.inst
					in.key = docKey{-2, c.inst.doc}
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
				return cmpInt(a.key.rank, b.key.rank)
			case a.key.seq != b.key.seq:
				return cmpInt(a.key.seq, b.key.seq)
			case a.col != b.col:
				return strings.Compare(a.col, b.col)
			}
			return cmpInt(a.off, b.off)
		})
		qt := strconv.Quote(term)
		for _, in := range group {
			path := "orphan-doc"
			switch {
			case in.key.rank >= 0:
				path = paths[in.key.rank]
			case in.key.rank == -1:
				path = "orphan-sid"
			}
			fmt.Fprintf(w, "token %s %s %d %s %d\n", qt, strconv.Quote(path), in.key.seq, in.col, in.off)
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// dumpDiff is how two dumps compare: the lines of each, how many differ
// position by position, and, when they differ, the first line number that
// differs and both lines there ("" for a dump that ended).
type dumpDiff struct {
	Lines, LinesB int
	Equal         bool
	Difference    int // lines that differ position by position
	Line          int
	A, B          string
}

// compareIndexes dumps the index files a and b at once, each into a pipe,
// and compares the dumps as they come: no dump is written to disk (at
// 1 GB of JSONL a dump is about 12 GB).
func compareIndexes(ctx context.Context, a, b string, omit []string) (dumpDiff, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ra, wa := io.Pipe()
	rb, wb := io.Pipe()
	go func() { wa.CloseWithError(dumpIndex(ctx, a, wa, omit)) }()
	go func() { wb.CloseWithError(dumpIndex(ctx, b, wb, omit)) }()
	d, err := compareStreams(ra, rb)
	// Unblock and end both dumps whatever happened.
	ra.CloseWithError(io.ErrClosedPipe)
	rb.CloseWithError(io.ErrClosedPipe)
	return d, err
}

// compareStreams compares two dumps line by line, to the end of both.
func compareStreams(fa, fb io.Reader) (dumpDiff, error) {
	ra, rb := bufio.NewReaderSize(fa, 1<<20), bufio.NewReaderSize(fb, 1<<20)
	d := dumpDiff{Equal: true}
	for n := 1; ; n++ {
		la, ea := ra.ReadString('\n')
		lb, eb := rb.ReadString('\n')
		if la != "" {
			d.Lines++
		}
		if lb != "" {
			d.LinesB++
		}
		if la != lb {
			d.Difference++
			if d.Equal {
				d.Equal, d.Line, d.A, d.B = false, n, strings.TrimSuffix(la, "\n"), strings.TrimSuffix(lb, "\n")
			}
		}
		if ea != nil && eb != nil {
			if ea != io.EOF {
				return d, ea
			}
			if eb != io.EOF {
				return d, eb
			}
			return d, nil
		}
	}
}

func (d dumpDiff) String() string {
	if d.Equal {
		return fmt.Sprintf("equal, %d lines", d.Lines)
	}
	return fmt.Sprintf("DIFFER (%d and %d lines, %d differ in place); first at line %d:\n< %s\n> %s", d.Lines, d.LinesB, d.Difference, d.Line, clip(d.A), clip(d.B))
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
