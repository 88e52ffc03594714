package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// FirstMessageLen is how many characters (runes) of a session's first user
// message the index keeps and `grove sessions` shows (SPEC §8).
const FirstMessageLen = 200

// FirstMessage is the text of a session's first user message as `grove
// sessions` shows it (SPEC §8; pi's /resume picker shows the same message
// on one line): terminal escape sequences removed, every run of
// whitespace and control characters made one space, trimmed, and cut to
// FirstMessageLen runes, the last of them "…" when cut.
func FirstMessage(text string) string {
	// ClipRunes needs one rune past the cut to know it cuts; oneLine never
	// ends with a space, so stopping there gives the same answer without a
	// copy of a 30 MB first message (SPEC §2.8).
	return ClipRunes(oneLine(jsonl.StripEscapes(text), FirstMessageLen+1), FirstMessageLen)
}

// NormalizeText is FirstMessage without the cut: what a `--first`
// substring is matched as.
func NormalizeText(text string) string {
	return oneLine(jsonl.StripEscapes(text), -1)
}

// oneLine makes every run of JavaScript whitespace and control characters
// in s one space and trims it. With limit ≥ 0 it stops after limit runes
// other than the spaces it puts in: a prefix of the whole answer, ending in
// a rune of s, and it holds no more than that prefix.
func oneLine(s string, limit int) string {
	var b strings.Builder
	if limit < 0 || len(s) <= 4*limit {
		b.Grow(len(s))
	}
	space := false
	n := 0
	for _, r := range s {
		if n == limit {
			break
		}
		if kit.JSSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// ClipRunes cuts s to n runes (n ≥ 1), the last one "…" when cut, with
// the spaces before the "…" trimmed.
func ClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		k++
	}
	return s
}
