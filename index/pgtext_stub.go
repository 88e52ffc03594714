package index

import (
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// SCAFFOLD until the pgsearch branch lands: one chunk, no limits.
type pgTextRow struct {
	Chunk int
	Only  bool
	TSV   string
}

func pgTextRows(text string) []pgTextRow {
	toks := tokenize(norm.NFKC.String(text))
	if len(toks) == 0 {
		return nil
	}
	pos := map[string][]string{}
	var order []string
	for i, t := range toks {
		if _, ok := pos[t.fold]; !ok {
			order = append(order, t.fold)
		}
		pos[t.fold] = append(pos[t.fold], fmt.Sprint(min(i+1, 16383)))
	}
	var b strings.Builder
	for _, w := range order {
		fmt.Fprintf(&b, "'%s':%s ", strings.ReplaceAll(strings.ReplaceAll(w, `\`, `\\`), "'", "''"), strings.Join(pos[w], ","))
	}
	return []pgTextRow{{Chunk: 0, Only: true, TSV: b.String()}}
}

func (q *Query) pgMatch(doc string) (string, []any) {
	term := func(t Term) string {
		var parts []string
		for i, tok := range t.Tokens {
			p := "'" + strings.ReplaceAll(strings.ReplaceAll(tok, `\`, `\\`), "'", "''") + "'"
			if t.Prefix && i == len(t.Tokens)-1 {
				p += ":*"
			}
			parts = append(parts, p)
		}
		return "(" + strings.Join(parts, " <-> ") + ")"
	}
	var groups []string
	for _, g := range q.Groups {
		var ors []string
		for _, t := range g {
			ors = append(ors, term(t))
		}
		groups = append(groups, "("+strings.Join(ors, " | ")+")")
	}
	expr := strings.Join(groups, " & ")
	for _, t := range q.Not {
		expr = "(" + expr + ") & !" + term(t)
	}
	return doc + " IN (SELECT t.doc FROM entry_text t WHERE t.tsv @@ CAST(? AS tsquery))", []any{expr}
}

func (q *Query) pgTSQuery() string {
	_, a := q.pgMatch("")
	return a[0].(string)
}
