package index

import (
	"math/big"
	"strings"
	"testing"
)

// sqlToken is one piece of a query as the dialect rules see it: a string
// literal or quoted name (kind: a quote), a SQLite placeholder `?` or `?N`
// ('?'), a PostgreSQL one `$N` ('$'), or anything else (0).
type sqlToken struct {
	kind byte
	text string
}

// sqlTokens splits q the way SQLite reads quotes: '…' and "…" with a
// doubled quote inside, one left open running to the end.
func sqlTokens(q string) []sqlToken {
	var out []sqlToken
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(q))
			out = append(out, sqlToken{'"', q[i:end]})
			i = end
		case c == '?' || c == '$':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if c == '$' && j == i+1 {
				out = append(out, sqlToken{0, "$"})
			} else {
				out = append(out, sqlToken{c, q[i:j]})
			}
			i = j
		default:
			out = append(out, sqlToken{0, q[i : i+1]})
			i++
		}
	}
	return out
}

// FuzzPgSQL checks pgSQL (SQLite query text → PostgreSQL's) on any input:
// it does not panic; its string literals and quoted names are those of
// the input, unchanged and in order (besides the quotes it puts around
// the column offset); no `?` is left outside them; and each `?N` became
// `$N` and each bare `?` `$K`, K one above the highest number so far
// (SQLite's numbering), in order, next to any `$N` the input held.
func FuzzPgSQL(f *testing.F) {
	for _, s := range []string{
		"SELECT a FROM t WHERE x = ? AND y = ?",
		"SELECT ?2, ?1, ?, ?5, ?",
		`SELECT 'it''s ?', "col ?1" FROM t WHERE a = ?`,
		"SELECT e.offset FROM entries e INDEXED BY entries_by_doc CROSS JOIN sessions s WHERE e.sid = s.sid AND e.offset > ?",
		"SELECT group_concat(name, char(0)) FROM t WHERE k = ?1",
		"'unterminated ? literal",
		`"unterminated ? name`,
		"?99999999999999999999 ?",
		"$1 ? $ ?? ?0",
		"INDEXED BY",
		"x CROSS JOIN",
		"char(0",
		"?'a'?\"b\"?",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out := pgConvert(q)
		in, got := sqlTokens(q), sqlTokens(out)

		var inLits, gotLits []string
		var want []string // the $N pieces out must hold, in order
		highest := new(big.Int)
		one := big.NewInt(1)
		exact := true // numbers stay in the range where bare ? is checked
		for _, tok := range in {
			switch tok.kind {
			case '"':
				if tok.text != `"offset"` {
					inLits = append(inLits, tok.text)
				}
			case '$':
				want = append(want, tok.text)
			case '?':
				n := new(big.Int)
				if len(tok.text) > 1 {
					n.SetString(tok.text[1:], 10)
					want = append(want, "$"+tok.text[1:])
				} else {
					n.Add(highest, one)
					if exact {
						want = append(want, "$"+n.String())
					} else {
						want = append(want, "")
					}
				}
				if n.Cmp(highest) > 0 {
					highest = n
				}
				if highest.BitLen() > 31 {
					exact = false
				}
			}
		}
		var dollars []string
		for _, tok := range got {
			switch tok.kind {
			case '"':
				if tok.text != `"offset"` {
					gotLits = append(gotLits, tok.text)
				}
			case '$':
				dollars = append(dollars, tok.text)
			case '?':
				t.Fatalf("pgSQL(%q) = %q: a ? is left outside the literals", q, out)
			}
		}
		if strings.Join(gotLits, "\x00") != strings.Join(inLits, "\x00") || len(gotLits) != len(inLits) {
			t.Fatalf("pgSQL(%q) = %q: literals %q, want %q", q, out, gotLits, inLits)
		}
		if len(dollars) != len(want) {
			t.Fatalf("pgSQL(%q) = %q: placeholders %q, want %q", q, out, dollars, want)
		}
		for i := range want {
			if want[i] != "" && dollars[i] != want[i] {
				t.Fatalf("pgSQL(%q) = %q: placeholders %q, want %q", q, out, dollars, want)
			}
		}
	})
}
