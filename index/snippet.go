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
	toks := tokenize(text)
	var spans [][2]int
	for _, t := range terms {
		n := len(t.Tokens)
		if n == 0 {
			continue
		}
		for i := 0; i+n <= len(toks); i++ {
			if termAt(toks[i:i+n], t) {
				spans = append(spans, [2]int{toks[i].start, toks[i+n-1].end})
			}
		}
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
	start := 0
	if len(merged) > 0 {
		start = back(text, merged[0][0], SnippetWidth/3)
	}
	end := forward(text, start, SnippetWidth)
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
			b.WriteString(MarkOpen + text[i:stop] + MarkClose)
			i, end = stop, max(end, stop)
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
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
