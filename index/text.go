package index

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// How text meets the full-text index (SPEC §7).
//
// The FTS5 table uses the unicode61 tokenizer with remove_diacritics 2: a
// token is a run of letters, numbers and private-use characters, matched
// without regard to case or Latin diacritics. Chinese, Japanese and Korean
// are written without spaces between words, so before text is stored every
// character of those scripts is set apart by spaces and becomes a token of
// its own; a query's CJK run becomes a phrase of single characters. A phrase
// matches consecutive tokens, so any substring of one or more CJK
// characters is found, and nothing but the inverted index is stored.

// isCJK reports whether r belongs to a script written without spaces
// between words: Han, Hiragana, Katakana or Hangul.
func isCJK(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isTokenRune mirrors unicode61's token characters: categories L*, N* and Co.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// ftsText returns text as it is stored in the full-text index: CJK
// characters stand apart, everything else is unchanged. Invalid UTF-8
// becomes U+FFFD, a separator. Runs without CJK are copied whole.
//
// A text that needs none of that (valid UTF-8, already NFKC, no CJK) is
// not copied: the string shares text's bytes (SPEC §2.8: a 30 MB text line
// was held three times in Go, the line, its search text and this copy,
// besides the copy SQLite binds). The caller must not change text while the
// string is in use; insertText binds it and lets it go.
func ftsText(text []byte) string { return ftsForm(text, false) }

// ftsTextOwned is ftsText as a string that shares no bytes with text: for
// search text held until its batch commits (pendingText), while the
// reader reuses the line's buffer.
func ftsTextOwned(text []byte) string { return ftsForm(text, true) }

func ftsForm(text []byte, own bool) string {
	if len(text) == 0 {
		return ""
	}
	i := 0
	for i < len(text) && text[i] < 0x80 {
		i++
	}
	if i == len(text) {
		if own {
			return string(text)
		}
		return unsafe.String(&text[0], len(text))
	}
	if !utf8.Valid(text) {
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
	}
	// Compatibility forms become the plain ones: fullwidth ＡＢＣ is ABC, the
	// ligature ﬁ is fi (fold does the same to query and snippet tokens).
	text = norm.NFKC.Bytes(text) // text itself when it is NFKC already
	k := cjkRunes(text)
	if k == 0 {
		if own {
			return string(text)
		}
		return unsafe.String(&text[0], len(text))
	}
	var b strings.Builder
	b.Grow(len(text) + 2*k) // its exact size: no slack on a 25 MB text (SPEC §2.8)
	copied, i := 0, 0
	for i < len(text) {
		if text[i] < 0xE1 {
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		if isCJK(r) {
			b.Write(text[copied:i])
			b.WriteByte(' ')
			b.Write(text[i : i+n])
			b.WriteByte(' ')
			copied = i + n
		}
		i += n
	}
	b.Write(text[copied:])
	return b.String()
}

// cjkRunes counts the characters of text that ftsText sets apart.
func cjkRunes(text []byte) int {
	n := 0
	for i := 0; i < len(text); {
		if text[i] < 0xE1 {
			i++
			continue
		}
		r, k := utf8.DecodeRune(text[i:])
		if isCJK(r) {
			n++
		}
		i += k
	}
	return n
}

// token is one token of a text: its byte span and its folded form.
type token struct {
	start, end int
	fold       string
}

// tokenize splits s the way the index does: runs of token characters, each
// CJK character alone. Folded forms are lower case without diacritics.
func tokenize(s string) []token {
	var out []token
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, token{start: start, end: end, fold: fold(s[start:end])})
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case isCJK(r):
			flush(i)
			out = append(out, token{start: i, end: i + utf8.RuneLen(r), fold: fold(string(r))})
		case r != utf8.RuneError && isTokenRune(r):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(s))
	return out
}

// fold returns a token's matching form: compatibility forms replaced
// (fullwidth Ａ → A, ﬁ → fi, as ftsText stores them), lower case, and the
// diacritics of Latin letters removed (é → e), as unicode61 with
// remove_diacritics 2 compares them.
func fold(tok string) string {
	ascii := true
	for i := 0; i < len(tok); i++ {
		if tok[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(tok)
	}
	plain := true // no upper case, no mark, nothing that decomposes: already folded
	for _, r := range tok {
		if unicode.IsUpper(r) || unicode.Is(unicode.Mn, r) {
			plain = false
			break
		}
	}
	if plain && norm.NFKD.IsNormalString(tok) {
		return tok
	}
	// unicode61 removes the diacritics of Latin letters only: the voicing
	// marks of kana (デ, が) and Greek accents stay, or データ would never
	// match what the index stores.
	var b strings.Builder
	var base rune
	for _, r := range norm.NFKD.String(tok) {
		if unicode.Is(unicode.Mn, r) {
			if unicode.Is(unicode.Latin, base) {
				continue
			}
		} else {
			base = r
		}
		b.WriteRune(r)
	}
	return strings.ToLower(norm.NFC.String(b.String()))
}
