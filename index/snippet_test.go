package index

import (
	"strings"
	"testing"
)

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler ", 60)
	tests := []struct {
		name, text, query, want string
	}{
		{"word", "the parser failed", "parser", "the [[parser]] failed"},
		{"case and accents", "Le Café ouvert", "cafe", "Le [[Café]] ouvert"},
		{"phrase only where adjacent", "refused a connection; connection refused", `"connection refused"`, "refused a connection; [[connection refused]]"},
		{"prefix", "authentication works", "auth*", "[[authentication]] works"},
		{"CJK substring", "我们的数据库索引坏了", "数据", "我们的[[数据]]库索引坏了"},
		{"one CJK character", "建立索引", "索", "建立[[索]]引"},
		{"white space collapsed", "a\n\n\tparser  b", "parser", "a [[parser]] b"},
		{"no match shows the start", "hello world", "zzz", "hello world"},
		{"cut around a late match", long + "needle " + long, "needle", "…" + strings.Repeat("filler ", 7) + "[[needle]] " + strings.TrimSpace(strings.Repeat("filler ", 15)) + "…"},
		{"overlapping terms merge", "foobar", "foo* foobar", "[[foobar]]"},
		{"fullwidth and ligatures", "ＡＢＣ and the ﬁle", "abc file", "[[ＡＢＣ]] and the [[ﬁle]]"},
		{"controls shown as spaces", "a\x00b\u202Eparser\x07", "parser", "a b [[parser]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := Snippet(tt.text, q.Terms()); got != tt.want {
				t.Errorf("Snippet(%.30q, %q) =\n  %q\nwant\n  %q", tt.text, tt.query, got, tt.want)
			}
		})
	}
}

func FuzzSnippet(f *testing.F) {
	f.Add("我们的数据库 parser\xff", "数据 pars*")
	f.Fuzz(func(t *testing.T, text, query string) {
		q, err := ParseQuery(query)
		if err != nil {
			return
		}
		if strings.Contains(text, "[[") || strings.Contains(text, "]]") {
			return
		}
		s := Snippet(text, q.Terms())
		if strings.Count(s, MarkOpen) != strings.Count(s, MarkClose) {
			t.Errorf("Snippet(%q, %q) = %q: unbalanced markers", text, query, s)
		}
		// The snippet marks a match exactly when the token scan of the
		// property test finds one.
		want := false
		toks := tokenize(text)
		for _, term := range q.Terms() {
			for i := 0; i+len(term.Tokens) <= len(toks); i++ {
				want = want || termAt(toks[i:i+len(term.Tokens)], term)
			}
		}
		if got := strings.Contains(s, MarkOpen); got != want {
			t.Errorf("Snippet(%q, %q) = %q: marked %v, token scan says %v", text, query, s, got, want)
		}
	})
}
