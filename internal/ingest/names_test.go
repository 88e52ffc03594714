package ingest

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// FirstMessage: escapes removed, whitespace and control runs one space,
// trimmed, at most FirstMessageLen runes (SPEC §8).
func TestFirstMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  \x1b[31mFix\x1b[0m   the\n\tbug\r\n", "Fix the bug"},
		{"a\u0085b\u00a0c\u3000d\ufeffe\x07f", "a b c d e f"},
		{"修复\n\n登录", "修复 登录"},
		{"", ""},
		{" \n ", ""},
	} {
		if got := FirstMessage(c.in); got != c.want {
			t.Errorf("FirstMessage(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	exact := strings.Repeat("字", FirstMessageLen)
	if got := FirstMessage(exact); got != exact {
		t.Errorf("FirstMessage of exactly %d runes was cut: %q", FirstMessageLen, got)
	}
	long := FirstMessage(strings.Repeat("字", FirstMessageLen+1))
	if n := utf8.RuneCountInString(long); n != FirstMessageLen || !strings.HasSuffix(long, "…") {
		t.Errorf("FirstMessage of %d runes = %d runes %q, want %d ending in …", FirstMessageLen+1, n, long, FirstMessageLen)
	}
}

// FirstMessage of a long text is the cut of NormalizeText's whole answer,
// spaces and cut points included, and is made without copying the text: a
// 30 MB first user message cost a 30 MB builder while indexing (SPEC §2.8).
func TestFirstMessage_LongTextNotCopied(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("word ", FirstMessageLen/5) + "x",
		strings.Repeat("ab \n\t ", FirstMessageLen),
		strings.Repeat("字 ", FirstMessageLen/2) + "末",
		strings.Repeat("字 ", FirstMessageLen/2+1),
		strings.Repeat(" ", 10) + strings.Repeat("y", FirstMessageLen) + "  z",
	} {
		if got, want := FirstMessage(in), ClipRunes(NormalizeText(in), FirstMessageLen); got != want {
			t.Errorf("FirstMessage(%.30q…) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("ordinary words of a long prompt ", 1<<15) // 1 MB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_ = FirstMessage(long)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("FirstMessage of a 1 MB text allocated %d bytes, want ≤ 64 KiB", got)
	}
}
