package archive

import (
	"strings"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/internal/ingest"
)

// NormalizeText is a text as the index stores a session's first user
// message (ingest.FirstMessage, SPEC §8) but without the cut: what a
// `--first` substring is matched as (ingest.NormalizeText).
func NormalizeText(text string) string { return ingest.NormalizeText(text) }

// ClipRunes cuts s to n runes (n ≥ 1), the last one "…" when cut, with
// the spaces before the "…" trimmed (ingest.ClipRunes).
func ClipRunes(s string, n int) string { return ingest.ClipRunes(s, n) }

// sessionName is a session_info name as pi's getSessionName returns it
// (kit.SessionName): trimmed of JavaScript whitespace, "" (no name) when
// nothing is left (SPEC §3.2).
func sessionName(name string) string { return kit.SessionName(name) }

// ShellQuote quotes s for a POSIX shell, in single quotes, when it holds
// anything but [A-Za-z0-9._/:-]: a command a message names can be pasted.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/-:", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
