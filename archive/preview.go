package archive

import (
	"strings"
	"unicode"

	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// PreviewWidth is the default length of a preview, in runes.
const PreviewWidth = 72

// Preview returns a one-line summary of a committed line, at most width
// runes: the text of a message, a tool call's name and arguments, a
// summary, a label. Terminal escape sequences (ESC [2J, colours, OSC
// titles) are removed whole, as search text and first messages remove
// them; runs of whitespace and other C0/C1 control characters become one
// space. Bidirectional overrides stay, for the caller to show escaped. It returns "" when the
// line holds nothing readable.
//
// Preview reads raw as a pi or plain line (agent.Default's, plain's
// entries being pi's); PreviewIn reads it in the session's dialect.
func Preview(raw []byte, width int) string {
	return clip(jsonl.StripEscapes(agent.Default.Preview(raw)), width)
}

// PreviewIn is Preview for a committed line of a session in dialect d
// (SPEC §3), as the dialect's agent previews it (internal/agent: pi's and
// plain's entries, the messages log's chat messages, Claude Code's and
// Codex's lines, FORMATS.md §1.4, §2.4, §3.1). An unknown dialect is read
// as plain's. Width is in runes; the result is "" when the line holds
// nothing readable, one line of at most width runes otherwise.
func PreviewIn(d Dialect, raw []byte, width int) string {
	return clip(jsonl.StripEscapes(agent.Of(d).Preview(raw)), width)
}

// clip squeezes whitespace and cuts s to width runes, ending in "…" when cut.
func clip(s string, width int) string {
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = n > 0
			continue
		}
		if space {
			if n+1 >= width {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if n >= width-1 && width > 0 {
			b.WriteString("…")
			return b.String()
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
