package main

import (
	"strings"

	"github.com/rivo/uniseg"
)

// displayWidth is the number of terminal columns s takes: East Asian wide
// and fullwidth characters and emoji take two, combining marks and other
// zero-width characters none (grapheme clusters, as a terminal draws them).
func displayWidth(s string) int {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return len(s)
	}
	return uniseg.StringWidth(s)
}

// clipWidth cuts s to at most cols terminal columns, ending in "…" when
// cut; a grapheme cluster (an emoji with its modifiers, a letter with its
// combining marks) is never split.
func clipWidth(s string, cols int) string {
	if displayWidth(s) <= cols {
		return s
	}
	n, at := 0, 0
	state := -1
	rest := s
	for len(rest) > 0 {
		var cluster string
		var w int
		cluster, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if n+w > cols-1 {
			break
		}
		n += w
		at += len(cluster)
	}
	return strings.TrimRight(s[:at], " ") + "…"
}
