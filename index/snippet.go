package index

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippet markers: a matched term is written as [[term]] (SPEC §8 search,
// `--json`); the command line turns them into colour on a terminal.
const (
	MarkOpen  = "[["
	MarkClose = "]]"
)

// SnippetWidth is about how many characters of text a snippet shows.
const SnippetWidth = 160

// Snippet returns about SnippetWidth characters of text around the first
// place where one of terms matches, with every match inside marked by
// MarkOpen and MarkClose, runs of white space shown as one space, and "…"
// where text was cut. Matching is the index's: folded tokens, phrases as
// consecutive tokens, a prefix term's last token as a prefix. With no match
// the snippet is the start of text.
func Snippet(text string, terms []Term) string {
	// Find the first match scanning the whole text, then every match in
	// the window around it: long tool outputs are scanned once, without
	// folding every token into a new string.
	start := 0
	if first, ok := firstMatch(text, 0, terms); ok {
		start = back(text, first[0], SnippetWidth/3)
	}
	end := forward(text, start, SnippetWidth)
	var spans [][2]int
	for from := start; from < len(text); {
		m, ok := firstMatch(text[:min(len(text), end+256)], from, terms)
		if !ok || m[0] >= end {
			break
		}
		spans = append(spans, m)
		from = m[1] // a token end: the scan never starts inside a word
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	// Merge overlapping spans so markers never nest.
	merged := spans[:0]
	for _, s := range spans {
		if k := len(merged) - 1; k >= 0 && s[0] <= merged[k][1] {
			merged[k][1] = max(merged[k][1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	space := false
	mi := 0
	for i := start; i < end; {
		for mi < len(merged) && merged[mi][1] <= i {
			mi++
		}
		if mi < len(merged) && merged[mi][0] == i {
			if space {
				b.WriteByte(' ')
				space = false
			}
			stop := merged[mi][1] // a match started is shown whole
			b.WriteString(MarkOpen + printable(text[i:stop]) + MarkClose)
			i, end = stop, max(end, stop)
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if unprintable(r) {
			space = b.Len() > 0
		} else {
			if space {
				b.WriteByte(' ')
				space = false
			}
			if r == utf8.RuneError && n == 1 {
				b.WriteString("\uFFFD")
			} else {
				b.WriteString(text[i : i+n])
			}
		}
		i += n
	}
	if end < len(strings.TrimRightFunc(text, unicode.IsSpace)) {
		b.WriteString("…")
	}
	return b.String()
}

// firstMatch returns the byte span of the first place at or after from
// where a term of terms matches text, as the index matches: consecutive
// tokens, compared folded, the last one of a prefix term as a prefix.
func firstMatch(text string, from int, terms []Term) ([2]int, bool) {
	longest := 0
	for _, t := range terms {
		longest = max(longest, len(t.Tokens))
	}
	if longest == 0 {
		return [2]int{}, false
	}
	recent := make([][2]int, 0, longest) // the last tokens seen, oldest first
	var found [2]int
	ok := false
	scanTokens(text, from, func(start, end int) bool {
		if len(recent) == longest {
			copy(recent, recent[1:])
			recent = recent[:longest-1]
		}
		recent = append(recent, [2]int{start, end})
		for _, t := range terms {
			n := len(t.Tokens)
			if n == 0 || n > len(recent) {
				continue
			}
			at := recent[len(recent)-n:]
			if spansSpell(text, at, t) {
				found, ok = [2]int{at[0][0], end}, true
				return false
			}
		}
		return true
	})
	return found, ok
}

// spansSpell reports whether the tokens of text at spans spell t.
func spansSpell(text string, spans [][2]int, t Term) bool {
	last := len(t.Tokens) - 1
	for j, want := range t.Tokens {
		got := text[spans[j][0]:spans[j][1]]
		if !foldEqual(got, want, j == last && t.Prefix) {
			return false
		}
	}
	return true
}

// foldEqual compares a token with a folded one (as a prefix when prefix is
// set), folding only when the token is not ASCII.
func foldEqual(tok, want string, prefix bool) bool {
	for i := 0; i < len(tok); i++ {
		if tok[i] >= 0x80 {
			f := fold(tok)
			return f == want || prefix && strings.HasPrefix(f, want)
		}
	}
	if prefix {
		return len(tok) >= len(want) && strings.EqualFold(tok[:len(want)], want)
	}
	return len(tok) == len(want) && strings.EqualFold(tok, want)
}

// scanTokens calls fn with the byte span of each token of s starting at or
// after from, as tokenize splits them, until fn returns false.
func scanTokens(s string, from int, fn func(start, end int) bool) {
	start := -1
	for i, r := range s[from:] {
		i += from
		switch {
		case isCJK(r):
			if start >= 0 && !fn(start, i) {
				return
			}
			start = -1
			if !fn(i, i+utf8.RuneLen(r)) {
				return
			}
		case r != utf8.RuneError && isTokenRune(r):
			if start < 0 {
				start = i
			}
		default:
			if start >= 0 && !fn(start, i) {
				return
			}
			start = -1
		}
	}
	if start >= 0 {
		fn(start, len(s))
	}
}

// unprintable reports whether r is shown as a space in a snippet: white
// space, control characters (a snippet goes to a terminal) and the bidi
// controls that would reorder the line.
func unprintable(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F
}

// printable returns s with unprintable runes as spaces.
func printable(s string) string {
	if strings.IndexFunc(s, unprintable) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unprintable(r) {
			return ' '
		}
		return r
	}, s)
}

// termAt reports whether toks, as long as t, spell t.
func termAt(toks []token, t Term) bool {
	last := len(t.Tokens) - 1
	for j, want := range t.Tokens {
		got := toks[j].fold
		if j == last && t.Prefix {
			if !strings.HasPrefix(got, want) {
				return false
			}
		} else if got != want {
			return false
		}
	}
	return true
}

// back returns the byte offset n characters before i, at a rune boundary,
// moved forward to the start of a word when that costs few characters.
func back(s string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	if i == 0 {
		return 0
	}
	for j, k := i, 0; k < 12 && j < len(s); k++ {
		r, size := utf8.DecodeRuneInString(s[j:])
		if unicode.IsSpace(r) {
			return j + size
		}
		j += size
	}
	return i
}

// forward returns the byte offset n characters after i, at a rune boundary.
func forward(s string, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}
