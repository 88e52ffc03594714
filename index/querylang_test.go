package index

import (
	"context"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
	"github.com/jmoiron/sqlx"
)

func TestParseQuery_Match(t *testing.T) {
	tests := []struct {
		name, query, want string
	}{
		{"words are ANDed", "parse error", `("parse") AND ("error")`},
		{"case folded", "Parse", `("parse")`},
		{"diacritics folded", "café", `("cafe")`},
		{"phrase", `"connection refused"`, `("connection refused")`},
		{"unclosed phrase", `"connection refused`, `("connection refused")`},
		{"exclusion", "parse -yaml", `(("parse")) NOT "yaml"`},
		{"excluded phrase", `parse -"yaml file"`, `(("parse")) NOT "yaml file"`},
		{"prefix", "auth*", `("auth" *)`},
		{"phrase prefix", `"read fi"*`, `("read fi" *)`},
		{"OR", "yaml OR toml", `("yaml" OR "toml")`},
		{"OR binds tighter", "parse yaml OR toml", `("parse") AND ("yaml" OR "toml")`},
		{"leading OR is a no-op", "OR yaml", `("yaml")`},
		{"lower-case or is a word", "yaml or toml", `("yaml") AND ("or") AND ("toml")`},
		{"CJK run is a phrase", "数据库", `("数 据 库")`},
		{"one CJK character", "树", `("树")`},
		{"mixed script", "SQLite索引", `("sqlite 索 引")`},
		{"punctuation splits", "foo.bar:baz", `("foo bar baz")`},
		{"NEAR is a word", "NEAR(a b)", `("near a") AND ("b")`},
		{"column filter is a word", "text:secret", `("text secret")`},
		{"stray quote", `it's`, `("it s")`},
		{"hyphen inside a word", "pre-commit", `("pre commit")`},
		{"lone minus", "a - b", `("a") AND ("b")`},
		{"AND is the default", "yaml AND toml", `("yaml") AND ("toml")`},
		{"NOT excludes", "yaml NOT toml", `(("yaml")) NOT "toml"`},
		{"an operator alone is a word", "AND", `("and")`},
		{"a trailing operator is a word", "tool OR", `("tool") AND ("or")`},
		{"a trailing NOT is a word", "NOT", `("not")`},
		{"one CJK character prefix", "数*", `("数" *)`},
		{"voiced kana keep their marks", "データ", `("デ ー タ")`},
		{"halfwidth kana compose", "ﾃﾞｰﾀ", `("デ ー タ")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err != nil {
				t.Fatalf("ParseQuery(%q) = %v", tt.query, err)
			}
			if got := q.Match(); got != tt.want {
				t.Errorf("ParseQuery(%q).Match() = %s, want %s", tt.query, got, tt.want)
			}
		})
	}
}

func TestParseQuery_BadQuery(t *testing.T) {
	for _, query := range []string{"", "   ", "*", `""`, "-foo", "NOT x", "(:)", "a*", "parse a*", strings.Repeat("w ", MaxQueryTerms+1), `"` + strings.Repeat("w ", MaxQueryTokens+1) + `"`, strings.Repeat("ab* ", MaxPrefixTerms+1)} {
		_, err := ParseQuery(query)
		if errs.CodeOf(err) != errs.CodeBadQuery {
			t.Errorf("ParseQuery(%.40q) = %v, want bad_query", query, err)
		}
	}
}

func TestParseQuery_IDLike(t *testing.T) {
	for query, want := range map[string]string{"3f2a": "3f2a", " 3f2a9c01 ": "3f2a9c01", "u-1": "u-1", "a b c d": "", "L993": "L993", "d703a1a9-1b7b": "d703a1a9-1b7b", "-x": ""} {
		q, err := ParseQuery(query)
		if err != nil {
			if want != "" {
				t.Errorf("ParseQuery(%q) = %v", query, err)
			}
			continue
		}
		if q.IDLike != want {
			t.Errorf("ParseQuery(%q).IDLike = %q, want %q", query, q.IDLike, want)
		}
	}
}

// FuzzParseQuery runs whatever ParseQuery accepts against a real FTS5
// table: a query is either bad_query or a MATCH expression SQLite takes.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{`a "b c" -d e* OR f`, `NEAR(a b, 2)`, `text:x`, `"`, `*`, `(`, `a AND OR NOT b`, "\xff\xfe数据", `-"`, `^a`, `a+b`, `{text}: a`} {
		f.Add(s)
	}
	db := sqlx.MustOpen("sqlite", ":memory:")
	defer db.Close()
	db.MustExec(`CREATE VIRTUAL TABLE t USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`)
	db.MustExec(`INSERT INTO t(rowid, text) VALUES (1, 'a b c d e f 数 据')`)
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s)
		if err != nil {
			if errs.CodeOf(err) != errs.CodeBadQuery {
				t.Fatalf("ParseQuery(%q) = %v, want bad_query", s, err)
			}
			return
		}
		if m := q.Match(); m != "" {
			var n int
			if err := db.GetContext(context.Background(), &n, "SELECT count(*) FROM t WHERE t MATCH ?", m); err != nil {
				t.Fatalf("ParseQuery(%q).Match() = %s: SQLite: %v", s, m, err)
			}
		}
	})
}
