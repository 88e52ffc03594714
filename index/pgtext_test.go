package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"github.com/jmoiron/sqlx"
	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// pgTextSchema is docs, every doc number of a test (those with no token
// too), beside the schema Open makes (migrations/postgres: entry_text and
// its two partial GIN indexes).
const pgTextSchema = `CREATE TABLE docs (doc BIGINT PRIMARY KEY);`

// pgTextIndex is a PostgreSQL database and an FTS5 table holding the same
// texts, doc i+1 for texts[i].
type pgTextIndex struct {
	pg   *sqlx.DB
	lite *sqlx.DB
}

func newPgTextIndex(t testing.TB) *pgTextIndex {
	t.Helper()
	url := os.Getenv("GROVE_PG_TEXT_URL")
	if _, bench := t.(*testing.B); !bench || url == "" {
		url = pgtest.DB(t)
	}
	d, err := Open(context.Background(), url) // grove's schema
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	pg, err := sqlx.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	if _, err := pg.Exec(pgTextSchema); err != nil {
		t.Fatal(err)
	}
	lite, err := sqlx.Open("sqlite", filepath.Join(t.TempDir(), "fts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	lite.SetMaxOpenConns(1)
	if _, err := lite.Exec(`CREATE VIRTUAL TABLE t USING fts5(text, content='', tokenize='unicode61 remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	return &pgTextIndex{pg: pg, lite: lite}
}

// load replaces the texts of x by texts, stored as ftsText stores them.
func (x *pgTextIndex) load(t testing.TB, texts []string) {
	t.Helper()
	if _, err := x.pg.Exec("TRUNCATE entry_text, docs"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.lite.Exec("DROP TABLE t; CREATE VIRTUAL TABLE t USING fts5(text, content='', tokenize='unicode61 remove_diacritics 2')"); err != nil {
		t.Fatal(err)
	}
	tx := x.pg.MustBegin()
	ltx := x.lite.MustBegin()
	for i, text := range texts {
		doc := int64(i + 1)
		fts := ftsText([]byte(text))
		tx.MustExec("INSERT INTO docs (doc) VALUES ($1)", doc)
		for _, r := range pgTextRows(fts) {
			if _, err := tx.Exec(`INSERT INTO entry_text (doc, chunk, single, tsv) VALUES ($1, $2, $3, $4::tsvector)`, doc, r.Chunk, r.Only, r.TSV); err != nil {
				t.Fatalf("insert doc %d chunk %d (%.80s…): %v", doc, r.Chunk, r.TSV, err)
			}
		}
		if _, err := ltx.Exec("INSERT INTO t (rowid, text) VALUES (?, ?)", doc, fts); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := ltx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// pgDocs returns the docs pgMatch finds for q, ascending.
func (x *pgTextIndex) pgDocs(t testing.TB, q *Query) []int64 {
	t.Helper()
	cond, args := q.pgMatch("d.doc")
	var docs []int64
	if err := x.pg.Select(&docs, sqlx.Rebind(sqlx.DOLLAR, "SELECT d.doc FROM docs d WHERE "+cond+" ORDER BY d.doc"), args...); err != nil {
		t.Fatalf("pgMatch(%q): %v\n%s %q", q.Raw, err, cond, args)
	}
	return docs
}

// liteDocs returns the docs FTS5 finds for q.Match(), ascending.
func (x *pgTextIndex) liteDocs(t testing.TB, q *Query) []int64 {
	t.Helper()
	var docs []int64
	if err := x.lite.Select(&docs, "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid", q.Match()); err != nil {
		t.Fatalf("MATCH %q: %v", q.Match(), err)
	}
	return docs
}

// scanDocs returns the docs whose text q.Matches, ascending.
func scanDocs(q *Query, texts []string) []int64 {
	var docs []int64
	for i, text := range texts {
		if q.Matches(text) {
			docs = append(docs, int64(i+1))
		}
	}
	return docs
}

// mustAgree checks that PostgreSQL, FTS5 and the scan find the same docs
// for query, and returns them.
func (x *pgTextIndex) mustAgree(t testing.TB, query string, texts []string) []int64 {
	t.Helper()
	q, err := ParseQuery(query)
	if err != nil {
		t.Fatalf("ParseQuery(%q): %v", query, err)
	}
	want := scanDocs(q, texts)
	if got := x.pgDocs(t, q); !slices.Equal(got, want) {
		t.Fatalf("PostgreSQL finds %v for %.200q [%.300s], the scan %v", got, query, q.pgTSQuery(), want)
	}
	if got := x.liteDocs(t, q); !slices.Equal(got, want) {
		t.Fatalf("FTS5 finds %v for %.200q [%.300s], the scan %v", got, query, q.Match(), want)
	}
	return want
}

// setChunkLimits sets the chunk limits for one test and puts them back
// when it ends.
func setChunkLimits(t testing.TB, tokens, bytes, overlap, positions int) {
	old := []int{pgChunkTokens, pgChunkBytes, pgChunkOverlap, pgMaxPositions}
	pgChunkTokens, pgChunkBytes, pgChunkOverlap, pgMaxPositions = tokens, bytes, overlap, positions
	t.Cleanup(func() {
		pgChunkTokens, pgChunkBytes, pgChunkOverlap, pgMaxPositions = old[0], old[1], old[2], old[3]
	})
}

var pgPropWords = append([]string{"naïve", "NAIVE", "Über", "uber", "it's", `back\slash`, "x1", "数据库", "中文", "中", "文", "的"}, propWords...)

var pgPropSeps = []string{" ", "  ", ".", "\n", ":", "", "-", "'", `\`, "—", "，", "。"}

// TestPgText_MatchesScanAndFTS5 is PostgreSQL search's one property: for
// random texts (accents, case, CJK runs, punctuation, texts long enough for
// several chunks under lowered limits, lexemes past their position limit)
// and random queries, pgMatch finds exactly the docs Query.Matches says,
// and FTS5 finds the same.
func TestPgText_MatchesScanAndFTS5(t *testing.T) {
	x := newPgTextIndex(t)
	rapid.Check(t, func(rt *rapid.T) {
		// Chunks of 5 to 12 tokens overlapping by 3: phrases of up to 4
		// tokens lie whole in a chunk, and the queries below hold no more.
		tokens := rapid.IntRange(5, 12).Draw(rt, "chunkTokens")
		bytes := rapid.SampledFrom([]int{150, 1_000_000}).Draw(rt, "chunkBytes")
		positions := rapid.SampledFrom([]int{1, 2, 256}).Draw(rt, "positions")
		setChunkLimits(t, tokens, bytes, 3, positions)
		n := rapid.IntRange(1, 12).Draw(rt, "texts")
		texts := make([]string, n)
		for i := range texts {
			var b strings.Builder
			for k := rapid.IntRange(0, 40).Draw(rt, "words"); k > 0; k-- {
				b.WriteString(rapid.SampledFrom(pgPropWords).Draw(rt, "w"))
				b.WriteString(rapid.SampledFrom(pgPropSeps).Draw(rt, "sep"))
			}
			texts[i] = b.String()
		}
		x.load(t, texts)
		query := drawPgQuery(rt, texts)
		q, err := ParseQuery(query)
		if err != nil {
			rt.Skip("bad_query")
		}
		for _, tm := range append(q.Terms(), q.Not...) {
			if len(tm.Tokens) > 4 {
				rt.Skip("phrase longer than the test's overlap allows")
			}
		}
		want := scanDocs(q, texts)
		if got := x.pgDocs(t, q); !slices.Equal(got, want) {
			rt.Fatalf("PostgreSQL finds %v for %q [%s], the scan %v; texts %q", got, query, q.pgTSQuery(), want, texts)
		}
		if got := x.liteDocs(t, q); !slices.Equal(got, want) {
			rt.Fatalf("FTS5 finds %v for %q [%s], the scan %v; texts %q", got, query, q.Match(), want, texts)
		}
	})
}

// drawPgQuery returns a query of 1 to 3 terms: words of the vocabulary or
// phrases cut from the texts, some as prefixes, excluded or ORed.
func drawPgQuery(rt *rapid.T, texts []string) string {
	var parts []string
	for k := rapid.IntRange(1, 3).Draw(rt, "terms"); k > 0; k-- {
		var w string
		toks := tokenize(texts[rapid.IntRange(0, len(texts)-1).Draw(rt, "from")])
		if len(toks) > 0 && rapid.Bool().Draw(rt, "cut") {
			i := rapid.IntRange(0, len(toks)-1).Draw(rt, "at")
			j := min(len(toks), i+rapid.IntRange(1, 3).Draw(rt, "len"))
			var ws []string
			for _, tk := range toks[i:j] {
				ws = append(ws, tk.fold)
			}
			w = `"` + strings.Join(ws, " ") + `"`
		} else {
			w = rapid.SampledFrom(pgPropWords).Draw(rt, "qw")
		}
		switch rapid.IntRange(0, 5).Draw(rt, "form") {
		case 1:
			if r := []rune(strings.Trim(w, `"`)); !strings.HasPrefix(w, `"`) {
				w = string(r[:rapid.IntRange(1, len(r)).Draw(rt, "pcut")]) + "*"
			} else {
				w += "*"
			}
		case 2:
			w = "-" + w
		case 3:
			w += " OR " + rapid.SampledFrom(pgPropWords).Draw(rt, "or")
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// TestPgText_ShortChinese: one- and two-character Chinese queries find the
// substrings of runs of Chinese text, no others.
func TestPgText_ShortChinese(t *testing.T) {
	x := newPgTextIndex(t)
	texts := []string{"数据库索引", "我的数据", "据说", "库存：数 据", "中文文本", "English only", "全文检索的中文分词"}
	x.load(t, texts)
	for q, want := range map[string][]int64{
		"数":   {1, 2, 4},
		"数据":  {1, 2, 4}, // doc 4's 数 据 are consecutive tokens
		"据库":  {1},
		"的":   {2, 7},
		"中文":  {5, 7},
		"文文":  {5},
		"文本":  {5},
		"检索":  {7},
		"索":   {1, 7},
		"数 据": {1, 2, 4},
	} {
		if got := x.mustAgree(t, q, texts); !slices.Equal(got, want) {
			t.Errorf("%q finds %v, want %v", q, got, want)
		}
	}
}
