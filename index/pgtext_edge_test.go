package index

import (
	"bufio"
	"database/sql"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"github.com/jmoiron/sqlx"

	"github.com/grove-sessions/grove/internal/pgtest"
)

// The edges of PostgreSQL search: chunk borders, long lexemes, texts over
// 1 MB, quoting, the real corpus, and its benchmarks.

// TestPgText_Chunks: with the real overlap (MaxQueryTokens) and short
// chunks, a phrase of MaxQueryTokens tokens across a chunk border is found,
// an AND of terms in different chunks is found, and an excluded term in a
// later chunk excludes the entry.
func TestPgText_Chunks(t *testing.T) {
	setChunkLimits(t, 600, pgChunkBytes, MaxQueryTokens, pgMaxPositions)
	var words []string
	for i := range 2000 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	texts := []string{strings.Join(words, " "), "w10 alone", "w1900 alone"}
	if rows := pgTextRows(texts[0]); len(rows) < 3 || rows[0].Only {
		t.Fatalf("2,000 tokens in chunks of 600 made %d rows (only=%v)", len(rows), rows[0].Only)
	}
	if rows := pgTextRows(texts[1]); len(rows) != 1 || !rows[0].Only {
		t.Fatalf("a short text made %d rows (%+v), want one with only", len(rows), rows)
	}
	x := newPgTextIndex(t)
	x.load(t, texts)
	border := `"` + strings.Join(words[450:450+MaxQueryTokens], " ") + `"`
	for q, want := range map[string][]int64{
		border:                        {1},
		`"w599 w600"`:                 {1},
		`"w600 w599"`:                 nil,
		"w10 w1900":                   {1},
		"w10 -w1900":                  {2},
		"w1900 -w10":                  {3},
		"w10 -w5":                     {2},
		"w1999 -alone":                {1},
		"w19* -w1999":                 {3},
		"alone OR w1500 w10":          {1, 2},
		`"w1998 w1999" "w0 w1"`:       {1},
		`"w1998 w1999" -"w0 w1"`:      nil,
		`"w1998 w1999" -"w1 w0"`:      {1},
		`w1999 OR nothing -"w0 w1" x`: nil,
	} {
		if got := x.mustAgree(t, q, texts); !slices.Equal(got, want) {
			t.Errorf("%.60q finds %v, want %v", q, got, want)
		}
	}
}

// TestPgText_LongLexeme: a token over 2,046 bytes is stored (as a stand-in)
// and found by itself, exactly or by a prefix, and not by another long
// token that shares its first bytes; a token just under the limit is
// stored as itself.
func TestPgText_LongLexeme(t *testing.T) {
	zh := strings.Repeat("ж", 1200) // 2 bytes each: "a"+zh cuts at 1,999 bytes
	long := "a" + zh + "z"          // 2,402 bytes
	other := "a" + zh + "y"
	mid := strings.Repeat("a", 2030) // stored as itself, over pgLexemeKeep
	texts := []string{"before " + long + " after", "before " + other + " after", mid + " x"}
	x := newPgTextIndex(t)
	x.load(t, texts)
	for q, want := range map[string][]int64{
		long:                                    {1},
		other:                                   {2},
		strings.ToUpper(long):                   {1},
		`"before ` + long + ` after"`:           {1},
		`"` + long + ` after"`:                  {1},
		`"after ` + long + `"`:                  nil,
		"before -" + long:                       {2},
		"aж*":                                   {1, 2},
		"aa*":                                   {3},
		"a" + strings.Repeat("ж", 999) + "*":    {1, 2}, // 1,999 bytes: x:*
		"a" + strings.Repeat("ж", 1000) + "*":   {1, 2}, // 2,001 bytes: x:* | 'k~':*
		"a" + strings.Repeat("ж", 1100) + "*":   {1, 2}, // 2,201 bytes: 'k~':*
		mid:                                     {3},
		strings.Repeat("a", 2010) + "*":         {3},
		strings.Repeat("a", 2030) + "*":         {3},
		strings.Repeat("a", 2031) + "*":         nil,
		strings.Repeat("a", 2029) + " x":        nil,
		`"` + strings.Repeat("a", 2030) + ` x"`: {3},
	} {
		if got := x.mustAgree(t, q, texts); !slices.Equal(got, want) {
			t.Errorf("%.40q… finds %v, want %v", q, got, want)
		}
	}
	// A prefix over 2,046 bytes finds every long token that starts with the
	// bytes a stand-in keeps: the one over-match, documented on
	// pgTermQuery.
	for query, want := range map[string][]int64{long + "*": {1, 2}, "a" + zh + "q*": {1, 2}} {
		q, err := ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		if got := x.pgDocs(t, q); !slices.Equal(got, want) {
			t.Errorf("the prefix %.20q… (%d bytes) finds %v, want %v", query, len(query), got, want)
		}
	}
}

// TestPgText_OverOneMB: a text of more than 1 MB of tokens, one of 200,000
// distinct words and one of 400,000 repeats of one word (past the 256
// positions a lexeme keeps), is stored in chunks PostgreSQL accepts, and
// phrases at its end and across its chunks are found.
func TestPgText_OverOneMB(t *testing.T) {
	var b strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&b, "word%06d ", i)
	}
	distinct := b.String()
	repeats := strings.Repeat("00 ", 400_000) + "end"
	// 40,000 words of 100 bytes: chunks end at pgChunkBytes, near the
	// 1 MB a tsvector holds, before 16,383 tokens.
	b.Reset()
	for i := range 40_000 {
		fmt.Fprintf(&b, "long%06d%s ", i, strings.Repeat("x", 90))
	}
	wide := b.String()
	texts := []string{distinct, repeats, wide}
	for _, text := range texts {
		rows := pgTextRows(text)
		var size int
		for _, r := range rows {
			size = max(size, len(r.TSV))
		}
		t.Logf("%d bytes of text: %d chunks, the largest %d bytes of tsvector text", len(text), len(rows), size)
		if len(rows) < 2 {
			t.Fatalf("%d bytes made %d chunk", len(text), len(rows))
		}
	}
	x := newPgTextIndex(t)
	x.load(t, texts)
	for q, want := range map[string][]int64{
		"word199999":                           {1},
		`"word000000 word000001"`:              {1},
		`"word150000 word150001"`:              {1},
		`"word150001 word150000"`:              nil,
		"word000000 word199999":                {1},
		"word000000 -word199999":               nil,
		`"00 00 00 end"`:                       {2},
		`"00 00 00 00 00 00 00 00"`:            {2},
		`"end 00"`:                             nil,
		"00 -end":                              nil,
		"long039999" + strings.Repeat("x", 90): {3},
		`"long020000` + strings.Repeat("x", 90) + ` long020001` + strings.Repeat("x", 90) + `"`: {3},
	} {
		if got := x.mustAgree(t, q, texts); !slices.Equal(got, want) {
			t.Errorf("%q finds %v, want %v", q, got, want)
		}
	}
}

// TestPgText_Quoting: lexemes holding quotes, backslashes and spaces
// (which tokens never hold) survive tsvector and tsquery input.
func TestPgText_Quoting(t *testing.T) {
	pg, err := sqlx.Open("pgx", pgtest.DB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	for _, lex := range []string{`it's`, `back\slash`, `a b`, `''`, `\`, `'\'`, "tab\tnl\n"} {
		tsv := pgTSVectorOf([]string{lex, "next"})
		var tq strings.Builder
		pgQuote(&tq, lex)
		tq.WriteString(" <-> 'next'")
		var ok bool
		var back []string
		if err := pg.QueryRow("SELECT $1::tsvector @@ $2::tsquery, tsvector_to_array($1::tsvector)", tsv, tq.String()).Scan(&ok, pgStringArray(&back)); err != nil {
			t.Fatalf("%q: %v", lex, err)
		}
		if !ok || !slices.Contains(back, lex) {
			t.Errorf("%q as %s: match %v, lexemes %q", lex, tsv, ok, back)
		}
	}
}

// pgStringArray scans a text[] of PostgreSQL into *p.
func pgStringArray(p *[]string) sql.Scanner { return (*pgArray)(p) }

type pgArray []string

func (a *pgArray) Scan(src any) error {
	// pgx's database/sql adapter gives text[] as its text form: {a,"b c"}.
	s, ok := src.(string)
	if !ok {
		return fmt.Errorf("text[] as %T", src)
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	var out []string
	for len(s) > 0 {
		var v string
		if s[0] == '"' {
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
				b.WriteByte(s[i])
			}
			v, s = b.String(), s[min(len(s), i+1):]
		} else {
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			v, s = s[:end], s[end:]
		}
		out = append(out, v)
		s = strings.TrimPrefix(s, ",")
	}
	*a = out
	return nil
}

// TestPgText_Corpus: the lines of the real sessions in ../shared/corpus,
// each as one entry, answer words and phrases sampled from them alike in
// PostgreSQL, FTS5 and the scan.
func TestPgText_Corpus(t *testing.T) {
	var texts []string
	_ = filepath.WalkDir("../../shared/corpus", func(f string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(f, ".jsonl") {
			return nil
		}
		fh, err := os.Open(f)
		if err != nil {
			return nil
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			texts = append(texts, sc.Text())
		}
		fh.Close()
		return nil
	})
	if len(texts) == 0 {
		t.Skip("no corpus in ../../shared/corpus")
	}
	x := newPgTextIndex(t)
	x.load(t, texts)
	rng := rand.New(rand.NewSource(18))
	for range 50 {
		toks := tokenize(texts[rng.Intn(len(texts))])
		if len(toks) == 0 {
			continue
		}
		i := rng.Intn(len(toks))
		j := min(len(toks), i+1+rng.Intn(3))
		var ws []string
		for _, tk := range toks[i:j] {
			ws = append(ws, tk.fold)
		}
		q := `"` + strings.Join(ws, " ") + `"`
		if rng.Intn(3) == 0 {
			q += " -" + toks[rng.Intn(len(toks))].fold
		}
		x.mustAgree(t, q, texts)
	}
}

// BenchmarkPgText_Search loads about 200,000 generated entries (Latin
// words and Chinese characters, 1 in 1,000 long enough for several chunks)
// and times pgMatch queries: a 1- and 2-character Chinese query, a common
// word, a rare word, a phrase. It logs the load rate and each query's plan
// (EXPLAIN ANALYZE). GROVE_PG_BENCH_ROWS sets the number of entries;
// GROVE_PG_TEXT_URL names an empty database to load instead of a
// throwaway one, kept for looking at plans afterwards.
func BenchmarkPgText_Search(b *testing.B) {
	n := 200_000
	if v := os.Getenv("GROVE_PG_BENCH_ROWS"); v != "" {
		fmt.Sscan(v, &n)
	}
	x := newPgTextIndex(b)
	rng := rand.New(rand.NewSource(18))
	var latin []string
	for i := range 5000 {
		latin = append(latin, fmt.Sprintf("w%x", i*2654435761%1000003))
	}
	latin[0], latin[1] = "the", "function"
	han := []rune("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质")
	word := func() string {
		// Zipf-like: low indexes are common.
		return latin[int(float64(len(latin))*rng.Float64()*rng.Float64()*rng.Float64())]
	}
	texts := make([]string, n)
	for i := range texts {
		var sb strings.Builder
		k := 5 + rng.Intn(55)
		if i%1000 == 0 {
			k = 20_000 + rng.Intn(20_000)
		}
		for range k {
			if rng.Intn(3) == 0 {
				for range 1 + rng.Intn(6) {
					sb.WriteRune(han[int(float64(len(han))*rng.Float64()*rng.Float64())])
				}
				sb.WriteByte(' ')
			} else {
				sb.WriteString(word())
				sb.WriteByte(' ')
			}
		}
		texts[i] = sb.String()
	}
	start := time.Now()
	var bytes, rows int
	tx := x.pg.MustBegin()
	const batch = 500
	var vals []string
	var args []any
	flush := func() {
		if len(vals) == 0 {
			return
		}
		tx.MustExec(`INSERT INTO entry_text (doc, chunk, single, tsv) VALUES `+strings.Join(vals, ","), args...)
		vals, args = vals[:0], args[:0]
	}
	var build time.Duration
	for i, text := range texts {
		bytes += len(text)
		t0 := time.Now()
		tr := pgTextRows(ftsText([]byte(text)))
		build += time.Since(t0)
		for _, r := range tr {
			k := len(args)
			vals = append(vals, fmt.Sprintf("($%d, $%d, $%d, $%d::tsvector)", k+1, k+2, k+3, k+4))
			args = append(args, i+1, r.Chunk, r.Only, r.TSV)
			rows++
			if len(vals) == batch {
				flush()
			}
		}
	}
	flush()
	tx.MustExec("INSERT INTO docs SELECT generate_series(1, $1::bigint)", n)
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	// As autovacuum would: GIN's pending list of fresh rows merged into the
	// index. Before it, the planner chose sequential scans for common terms.
	t0 := time.Now()
	x.pg.MustExec("VACUUM ANALYZE entry_text")
	x.pg.MustExec("VACUUM ANALYZE docs")
	b.Logf("VACUUM ANALYZE: %v", time.Since(t0).Round(time.Millisecond))
	var size string
	x.pg.Get(&size, "SELECT pg_size_pretty(pg_total_relation_size('entry_text'))")
	b.Logf("loaded %d entries (%d rows, %.1f MB of text) in %v (%v of it in pgTextRows): %.0f entries/s, %.1f MB/s; entry_text %s",
		n, rows, float64(bytes)/1e6, took.Round(time.Millisecond), build.Round(time.Millisecond), float64(n)/took.Seconds(), float64(bytes)/1e6/took.Seconds(), size)
	queries := []string{"数", "数据", "the", "function", latin[4000], `"the function"`, "的 -the"}
	for _, query := range queries {
		q, err := ParseQuery(query)
		if err != nil {
			b.Fatal(err)
		}
		cond, args := q.pgMatch("d.doc")
		page := sqlx.Rebind(sqlx.DOLLAR, "SELECT d.doc FROM docs d WHERE "+cond+" ORDER BY d.doc DESC LIMIT 20")
		count := sqlx.Rebind(sqlx.DOLLAR, "SELECT count(*) FROM docs d WHERE "+cond)
		var plan []string
		if err := x.pg.Select(&plan, "EXPLAIN (ANALYZE, COSTS OFF) "+page, args...); err != nil {
			b.Fatal(err)
		}
		var hits int
		t0 := time.Now()
		if err := x.pg.Get(&hits, count, args...); err != nil {
			b.Fatal(err)
		}
		b.Logf("%q: %d hits, count(*) %v; page plan:\n%s", query, hits, time.Since(t0).Round(time.Microsecond), strings.Join(plan, "\n"))
		b.Run(query, func(b *testing.B) {
			for range b.N {
				var docs []int64
				if err := x.pg.Select(&docs, page, args...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPgTextRows times pgTextRows alone on a text of Latin words and
// Chinese runs of about 1 MB, in bytes of text per second.
func BenchmarkPgTextRows(b *testing.B) {
	rng := rand.New(rand.NewSource(18))
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		if rng.Intn(3) == 0 {
			sb.WriteString("数据库索引的中文 ")
		} else {
			fmt.Fprintf(&sb, "w%x ", rng.Intn(5000))
		}
	}
	text := ftsText([]byte(sb.String()))
	b.SetBytes(int64(len(text)))
	for range b.N {
		pgTextRows(text)
	}
}
