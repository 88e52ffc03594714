package index

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Search text in PostgreSQL (SPEC §7, §10).
//
// PostgreSQL gives the same matches as FTS5 by storing grove's own tokens
// (tokenize and fold: runs of letters and numbers folded, each CJK character
// a token of its own), never PostgreSQL's text parser, whose word rules
// differ from unicode61's. An entry's tokens go into a tsvector with their
// positions (1, 2, ...), GIN-indexed; a query term becomes a tsquery phrase
// (a <-> b), the last token a prefix (:*) when the term is one.
//
// A tsvector has limits that a long entry passes, so an entry is stored as
// rows of table entry_text (doc, chunk, single, tsv), one per chunk of its
// tokens:
//
//   - positions stop at 16,383 (larger ones are clamped, and phrases break):
//     a chunk holds at most pgChunkTokens tokens, numbered from 1;
//   - a tsvector holds at most 1 MB of lexemes and positions: a chunk's
//     lexemes (each once) plus 4 bytes a lexeme and 2 a position stay within
//     pgChunkBytes;
//   - a lexeme keeps at most 256 positions, the later ones are dropped: the
//     257th to 512th occurrence of lexeme x in a chunk is stored as "x 1",
//     the next 256 as "x 2", and so on (pgMaxPositions) (a space never occurs in a token), and
//     a query for the token x asks for x | 'x ':*;
//   - a lexeme is at most 2,046 bytes: a token longer than pgMaxLexeme bytes
//     is stored as a stand-in, its first bytes (at most pgLexemeKeep, cut at
//     a character) then "~" and 16 hex digits of the token's SHA-256 (see
//     pgLexeme). A query for the same token maps to the same stand-in.
//
// Consecutive chunks overlap by pgChunkOverlap (MaxQueryTokens) tokens, so
// every phrase a query can hold (at most MaxQueryTokens tokens) lies whole in
// one chunk. An entry of one chunk has single set, and is matched by one
// tsquery on its row through the GIN index; an entry of several chunks is
// matched over all its chunks together (pgMatch).
//
// pgMatch expects these indexes (migrations/postgres), one for each of its
// parts:
//
//	CREATE INDEX entry_text_one ON entry_text USING gin (tsv) WHERE single;
//	CREATE INDEX entry_text_multi ON entry_text USING gin (tsv) WHERE NOT single;
//
// Measured on 200k entries: with a b-tree on doc WHERE NOT single in place
// of the second, the planner chose it and read every multi-chunk row's
// tsvector for each query (34-43 ms, against 0.4-3 ms); with one GIN index
// on every row, a phrase's one-chunk part rechecked the positions of the
// long rows too before dropping them (a 2-character query counted in 47
// ms, against 14 ms).

// Chunk limits; variables so that tests can make many chunks from short
// texts. pgChunkOverlap must stay below pgChunkTokens and at least the
// longest phrase a query holds, less one.
var (
	pgChunkTokens  = 16383     // PostgreSQL's largest position
	pgChunkBytes   = 1_000_000 // under the 1,048,575 bytes a tsvector holds
	pgChunkOverlap = MaxQueryTokens
	pgMaxPositions = 256 // positions a lexeme keeps in a tsvector; at most 256
)

// Lexeme limits: PostgreSQL refuses a lexeme over 2,046 bytes.
const (
	pgMaxLexeme  = 2040 // longest token stored as itself: room for " 63"
	pgLexemeKeep = 2000 // bytes of a longer token kept in its stand-in
)

// pgTextRow is one row of the PostgreSQL table entry_text for an entry.
// TSV is in tsvector input syntax ('lexeme':1,7 'other':2), bound as a
// parameter and cast ?::tsvector.
type pgTextRow struct {
	Chunk int
	Only  bool
	TSV   string
}

// pgTextRows returns the entry_text rows of an entry whose search text is
// text (what ftsText gives, the text SQLite is given), chunk 0 first; none
// when text holds no token. Chunks follow the rules above.
func pgTextRows(text string) []pgTextRow {
	toks := tokenize(norm.NFKC.String(text))
	if len(toks) == 0 {
		return nil
	}
	ids, names := pgIntern(toks)
	count := make([]int32, len(names)) // occurrences in a chunk, zero between chunks
	var rows []pgTextRow
	for start := 0; ; {
		end := pgChunkEnd(ids, names, count, start)
		rows = append(rows, pgTextRow{Chunk: len(rows), TSV: pgTSVector(ids[start:end], names)})
		if end == len(ids) {
			break
		}
		start = max(end-pgChunkOverlap, start+1)
	}
	rows[0].Only = len(rows) == 1
	return rows
}

// pgIntern returns the lexeme of each token as a number, ids[i] for
// toks[i], and the lexemes by number.
func pgIntern(toks []token) (ids []int32, names []string) {
	ids = make([]int32, len(toks))
	index := make(map[string]int32)
	for i, t := range toks {
		l := pgLexeme(t.fold)
		id, ok := index[l]
		if !ok {
			id = int32(len(names))
			index[l] = id
			names = append(names, l)
		}
		ids[i] = id
	}
	return ids, names
}

// pgChunkEnd returns the end of the chunk of ids that starts at start: as
// many tokens as pgChunkTokens and pgChunkBytes allow, at least one. count
// is zero for every lexeme on entry and on return.
func pgChunkEnd(ids []int32, names []string, count []int32, start int) int {
	size := 0
	end := start
	for end < len(ids) && end-start < pgChunkTokens {
		id := ids[end]
		cost := 2 // a position
		if int(count[id])%pgMaxPositions == 0 {
			// A new lexeme (or a new overflow lexeme "x 1"): its bytes, its
			// entry, its count and alignment.
			cost += len(names[id]) + 4 + 4 + 4
		}
		if size+cost > pgChunkBytes && end > start {
			break
		}
		size += cost
		count[id]++
		end++
	}
	for _, id := range ids[start:end] {
		count[id] = 0
	}
	return end
}

// pgTSVector returns the chunk ids (lexemes named by names) as a tsvector
// literal, positions from 1, each lexeme's occurrences after its
// pgMaxPositions-th under its overflow lexemes.
func pgTSVector(ids []int32, names []string) string {
	order := make([]int32, len(ids)) // positions, by lexeme then position
	size := 0
	for i := range order {
		order[i] = int32(i)
		size += len(names[ids[i]])/4 + 7 // a rough guess
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(ids[a], ids[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var b strings.Builder
	b.Grow(size)
	n := 0 // occurrences of the current lexeme so far
	for i, p := range order {
		if i == 0 || ids[p] != ids[order[i-1]] {
			n = 0
		}
		if n%pgMaxPositions == 0 {
			if i > 0 {
				b.WriteByte(' ')
			}
			suffix := ""
			if k := n / pgMaxPositions; k > 0 {
				suffix = " " + strconv.Itoa(k)
			}
			pgQuote(&b, names[ids[p]]+suffix)
			b.WriteByte(':')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p) + 1))
		n++
	}
	return b.String()
}

// pgTSVectorOf is pgTSVector of a list of lexemes.
func pgTSVectorOf(lex []string) string {
	toks := make([]token, len(lex))
	for i, l := range lex {
		toks[i].fold = l
	}
	ids, names := pgIntern(toks)
	return pgTSVector(ids, names)
}

// pgQuote writes s as a quoted lexeme of tsvector or tsquery input: within
// single quotes, a quote and a backslash are escaped by a backslash.
func pgQuote(b *strings.Builder, s string) {
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
}

// pgLexeme returns the lexeme a folded token is stored as: the token
// itself, or for one over pgMaxLexeme bytes its stand-in: the first
// pgLexemeKeep bytes or fewer (cut at a character), "~", and 16 hex digits
// of the SHA-256 of the whole token. Two long tokens share a stand-in only
// when they share those digits.
func pgLexeme(tok string) string {
	if len(tok) <= pgMaxLexeme {
		return tok
	}
	sum := sha256.Sum256([]byte(tok))
	return pgKeep(tok) + "~" + hex.EncodeToString(sum[:8])
}

// pgKeep returns the longest prefix of tok of at most pgLexemeKeep bytes
// that ends at a character boundary.
func pgKeep(tok string) string {
	if len(tok) <= pgLexemeKeep {
		return tok
	}
	k := pgLexemeKeep
	for k > 0 && !utf8.RuneStart(tok[k]) {
		k--
	}
	return tok[:k]
}

// pgTSQuery returns q as one tsquery literal: (g1 | ...) & (g2 | ...) & !n1
// & ..., true of an entry of one chunk exactly when q.Matches its text; ""
// when q has no text term (an id-only query). Each term is a phrase of its
// tokens (pgTermQuery).
func (q *Query) pgTSQuery() string {
	if len(q.Groups) == 0 {
		return ""
	}
	var parts []string
	for _, g := range q.Groups {
		parts = append(parts, "("+pgGroupQuery(g)+")") // & binds tighter than |
	}
	for _, t := range q.Not {
		parts = append(parts, "!("+pgTermQuery(t)+")")
	}
	return strings.Join(parts, " & ")
}

// pgGroupQuery returns the tsquery of a group of ORed terms.
func pgGroupQuery(g []Term) string {
	var parts []string
	for _, t := range g {
		parts = append(parts, "("+pgTermQuery(t)+")")
	}
	return strings.Join(parts, " | ")
}

// pgTermQuery returns the tsquery of one term: its tokens joined by <->.
// A token x is (x | 'x ':*), x or one of its overflow lexemes; a token over
// pgMaxLexeme bytes is asked for by its stand-in.
//
// The last token of a prefix term x* is x:*, which also finds the overflow
// lexemes and the stand-ins of long tokens that start with x. When x is
// longer than pgLexemeKeep bytes, it is (x:* | 'k~':*) where k is the part
// of x a stand-in keeps (pgKeep), or only 'k~':* when x is too long for a
// lexeme (over 2,046 bytes): it then also finds a token over pgMaxLexeme
// bytes that starts with k but not with x (Query.Matches would not), the
// one case where PostgreSQL finds more than SQLite.
func pgTermQuery(t Term) string {
	var b strings.Builder
	for i, tok := range t.Tokens {
		if i > 0 {
			b.WriteString(" <-> ")
		}
		switch {
		case t.Prefix && i == len(t.Tokens)-1:
			b.WriteByte('(')
			if len(tok) <= 2046 {
				pgQuote(&b, tok)
				b.WriteString(":*")
			}
			if k := pgKeep(tok); k != tok {
				if len(tok) <= 2046 {
					b.WriteString(" | ")
				}
				pgQuote(&b, k+"~")
				b.WriteString(":*")
			}
			b.WriteByte(')')
		default:
			l := pgLexeme(tok)
			b.WriteByte('(')
			pgQuote(&b, l)
			b.WriteString(" | ")
			pgQuote(&b, l+" ")
			b.WriteString(":*)")
		}
	}
	return b.String()
}

// pgMatch returns a SQL condition on the column expression doc (an
// entry's doc number, e.g. "e.doc") that is true exactly when the entry's
// text matches q as Query.Matches says, with ? placeholders and args in
// their order; "FALSE" when q has no text term.
//
// An entry of one chunk (single) matches when its row matches pgTSQuery.
// An entry of several chunks matches when each group of q matches one of
// its chunks and no excluded term matches any of them (a term in chunk 0
// and another in chunk 3 is an AND match): an INTERSECT of the entries
// each group finds, EXCEPT those an excluded term finds. Every part is one
// tsquery on tsv: the one-chunk part a Bitmap Index Scan of
// entry_text_one, each multi-chunk part one of entry_text_multi, so no part
// reads every row (measured on 200k entries; a term in most entries may
// still be read by a sequential scan when the planner finds it cheaper, as
// it does while GIN's pending list of fresh rows is long).
func (q *Query) pgMatch(doc string) (cond string, args []any) {
	if len(q.Groups) == 0 {
		return "FALSE", nil
	}
	const one = `SELECT doc FROM entry_text WHERE single AND tsv @@ ?::tsquery`
	const multi = `SELECT doc FROM entry_text WHERE NOT single AND tsv @@ ?::tsquery`
	args = []any{q.pgTSQuery()}
	var parts []string
	for _, g := range q.Groups {
		parts = append(parts, multi)
		args = append(args, pgGroupQuery(g))
	}
	sets := strings.Join(parts, " INTERSECT ")
	for _, t := range q.Not {
		sets += " EXCEPT " + multi
		args = append(args, pgTermQuery(t))
	}
	return doc + " IN (" + one + " UNION ALL (" + sets + "))", args
}
