package index

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// Query is a parsed search query (SPEC §8 `search`). The language is the
// one people know from web search:
//
//	word word        both words (AND)
//	"a phrase"       the words next to each other, in order
//	-word, -"a b"    entries without it
//	word*            a word starting with word
//	a OR b           either (OR binds tighter than AND: `x a OR b` = x AND (a OR b))
//	a AND b, NOT b   the same as `a b` and `-b`, for people who type them
//
// Matching ignores case and Latin diacritics; a CJK run matches as a
// substring of any length. Every term reaches SQLite as a quoted FTS5
// phrase made of tokens, so no character the user types is ever FTS5
// syntax: a stray quote, colon, parenthesis, `*` or NEAR is either part of
// a word or a separator.
type Query struct {
	Raw    string
	Groups [][]Term // each group is ORed; the groups are ANDed
	Not    []Term   // terms an entry must not have
	// IDLike is the whole query when it could be an entry or session id: one
	// word from [A-Za-z0-9_-], not starting with '-'; else "". It is looked
	// up exactly, and as a unique prefix when 4 characters or longer.
	IDLike string
}

// Term is one word or phrase of a Query: its folded tokens, matched as
// consecutive tokens, the last one as a prefix when Prefix is set.
type Term struct {
	Tokens []string
	Prefix bool
}

// Limits of a query; beyond them ParseQuery returns bad_query.
const (
	MaxQueryTerms  = 64
	MaxQueryTokens = 256 // a phrase of hundreds of words costs seconds on a large index
	MaxPrefixTerms = 8   // each prefix merges every word it starts
)

// ParseQuery parses s. Errors: a *errs.Error with Code bad_query when s
// holds no word to look for (empty, only operators and punctuation, or only
// excluded terms), or more than MaxQueryTerms terms or MaxQueryTokens
// tokens. Invalid UTF-8 is read as U+FFFD, a separator.
func ParseQuery(s string) (*Query, error) {
	q := &Query{Raw: s}
	// Read as the index reads text: terminal escapes removed (a query
	// pasted from coloured output), compatibility forms as the index stores
	// them (halfwidth ﾃﾞ is デ).
	s = norm.NFKC.String(jsonl.StripEscapes(strings.ToValidUTF8(s, "\uFFFD")))
	if w := strings.TrimSpace(s); len(w) >= 1 && w[0] != '-' && strings.IndexFunc(w, notIDRune) < 0 {
		q.IDLike = w
	}
	terms, tokens, prefixes := 0, 0, 0
	orNext := false  // the previous item was OR and a term came before it
	notNext := false // the previous item was NOT
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		neg := notNext
		notNext = false
		if r == '-' && i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '-' {
			neg = true
			i++
		}
		var text string
		var t Term
		if s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 { // an unclosed quote runs to the end
				text, i = s[i+1:], len(s)
			} else {
				text, i = s[i+1:i+1+end], i+2+end
			}
			if i < len(s) && s[i] == '*' {
				t.Prefix = true
				i++
			}
		} else {
			end := strings.IndexFunc(s[i:], func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
			if end < 0 {
				end = len(s) - i
			}
			text, i = s[i:i+end], i+end
			last := strings.TrimSpace(s[i:]) == "" // an operator with no term after it is a word
			switch {
			case last:
			case text == "OR" && !neg:
				orNext = len(q.Groups) > 0
				continue
			case text == "AND" && !neg:
				continue
			case text == "NOT" && !neg:
				notNext = true
				continue
			}
			if trimmed := strings.TrimRight(text, "*"); trimmed != text {
				text, t.Prefix = trimmed, true
			}
		}
		for _, tok := range tokenize(text) {
			t.Tokens = append(t.Tokens, tok.fold)
		}
		if len(t.Tokens) == 0 {
			orNext = false
			continue // punctuation only: nothing to match
		}
		if t.Prefix {
			prefixes++
			if last := []rune(t.Tokens[len(t.Tokens)-1]); len(last) < 2 && !isCJK(last[0]) {
				return nil, badQuery(s, fmt.Sprintf("%q is too short a prefix: it would match most words; give 2 characters or more before *", text+"*"))
			}
		}
		terms++
		tokens += len(t.Tokens)
		switch {
		case neg:
			q.Not = append(q.Not, t)
		case orNext:
			q.Groups[len(q.Groups)-1] = append(q.Groups[len(q.Groups)-1], t)
		default:
			q.Groups = append(q.Groups, []Term{t})
		}
		orNext = false
	}
	switch {
	case terms > MaxQueryTerms:
		return nil, badQuery(s, fmt.Sprintf("the query has %d terms; at most %d are allowed", terms, MaxQueryTerms))
	case tokens > MaxQueryTokens:
		return nil, badQuery(s, fmt.Sprintf("the query has %d words; at most %d are allowed", tokens, MaxQueryTokens))
	case prefixes > MaxPrefixTerms:
		return nil, badQuery(s, fmt.Sprintf("the query has %d prefix terms (word*); at most %d are allowed", prefixes, MaxPrefixTerms))
	case len(q.Groups) == 0 && q.IDLike == "":
		msg := "the query has no word to look for: search matches letters and digits, not punctuation or emoji alone"
		if len(q.Not) > 0 {
			msg = "the query only excludes words; add a word to look for"
		}
		return nil, badQuery(s, msg)
	}
	return q, nil
}

func notIDRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
}

func badQuery(q, msg string) error {
	return errs.New(errs.CodeBadQuery, msg).WithHint(`words are ANDed; use "quoted phrases", -word to exclude, word* for a prefix, OR between words`)
}

// Match returns the FTS5 MATCH expression of q, or "" when q has no text
// term (an id-only query). Every term is a double-quoted phrase of tokens
// that hold only letters and numbers.
func (q *Query) Match() string {
	if len(q.Groups) == 0 {
		return ""
	}
	var b strings.Builder
	for i, g := range q.Groups {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteByte('(')
		for j, t := range g {
			if j > 0 {
				b.WriteString(" OR ")
			}
			t.write(&b)
		}
		b.WriteByte(')')
	}
	expr := b.String()
	for _, t := range q.Not {
		var nb strings.Builder
		t.write(&nb)
		expr = "(" + expr + ") NOT " + nb.String()
	}
	return expr
}

func (t Term) write(b *strings.Builder) {
	b.WriteByte('"')
	for i, tok := range t.Tokens {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.ReplaceAll(tok, `"`, `""`))
	}
	b.WriteByte('"')
	if t.Prefix {
		b.WriteString(" *")
	}
}

// Terms returns the terms an entry is looked up by (not the excluded ones),
// for marking them in snippets.
func (q *Query) Terms() []Term {
	var out []Term
	for _, g := range q.Groups {
		out = append(out, g...)
	}
	return out
}

// Matches reports whether text matches q by a direct scan of its tokens:
// the rule the full-text index implements, for tests and for checking
// answers. It ignores IDLike.
func (q *Query) Matches(text string) bool {
	toks := tokenize(norm.NFKC.String(text))
	has := func(t Term) bool {
		for i := 0; i+len(t.Tokens) <= len(toks); i++ {
			if termAt(toks[i:i+len(t.Tokens)], t) {
				return true
			}
		}
		return false
	}
	for _, g := range q.Groups {
		found := false
		for _, t := range g {
			found = found || has(t)
		}
		if !found {
			return false
		}
	}
	for _, t := range q.Not {
		if has(t) {
			return false
		}
	}
	return len(q.Groups) > 0
}
