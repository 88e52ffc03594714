package pick

import (
	tea "charm.land/bubbletea/v2"
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
	"github.com/grove-sessions/grove/internal/visible"
)

// MinWidth and MinHeight are the smallest terminal the picker draws in
// (columns, rows); a smaller one is told so instead.
const (
	MinWidth  = 60
	MinHeight = 10
)

var (
	selectedStyle = lipgloss.NewStyle().Reverse(true)
	dimStyle      = lipgloss.NewStyle().Faint(true)
)

// View draws the picker (screen) in the terminal's alternate screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	return v
}

// screen is the picker's text: the query, the sessions and the selected
// one's leaves side by side, the selected session's workspace and first
// message (or the hit's snippet), and the keys.
func (m *Model) screen() string {
	if m.width == 0 {
		return ""
	}
	if m.width < MinWidth || m.height < MinHeight {
		// Short lines: the terminal cuts what does not fit.
		return fmt.Sprintf("terminal too small:\ngrove pick needs %d×%d,\nthis one is %d×%d.\nEsc quits.", MinWidth, MinHeight, m.width, m.height)
	}
	var b strings.Builder
	line := func(s string) {
		b.WriteString(ansi.Truncate(s, m.width, "…"))
		b.WriteByte('\n')
	}
	if m.prompting {
		line(m.prompt.View())
	} else {
		line(m.input.View())
	}
	line(dimStyle.Render(m.counts()))
	body := m.bodyRows()
	left := m.width * 11 / 20
	right := m.width - left - 3
	ls := m.sessionLines(left, body)
	rs := m.leafLines(right, body)
	for i := 0; i < body; i++ {
		line(pad(ls[i], left) + " │ " + rs[i])
	}
	line(dimStyle.Render(strings.Repeat("─", m.width)))
	line(m.detail())
	switch {
	case m.status != "":
		lines := m.statusLines()
		for i, l := range lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(ansi.Truncate(l, m.width, "…"))
		}
	case m.prompting:
		b.WriteString(dimStyle.Render("enter resume with this message · esc back"))
	default:
		b.WriteString(dimStyle.Render("↑↓ move · tab leaves · shift+tab sessions · enter resume · esc quit"))
	}
	return b.String()
}

// bodyRows is how many rows the two lists get.
func (m *Model) bodyRows() int { return max(1, m.height-4-len(m.statusLines())) }

// maxStatusLines bounds the lines a status (a refusal's reason) wraps to.
const maxStatusLines = 4

// statusLines are the bottom lines: the status wrapped to the width (a
// refusal names what would work; cut, it would hide it), at most
// maxStatusLines of them; one line, the keys, when there is none.
func (m *Model) statusLines() []string {
	if m.status == "" || m.width <= 0 {
		return []string{""}
	}
	lines := strings.Split(ansi.Wrap(clean(m.status), m.width, " /"), "\n")
	if len(lines) > maxStatusLines {
		lines = lines[:maxStatusLines]
		lines[maxStatusLines-1] = ansi.Truncate(lines[maxStatusLines-1]+" …", m.width, "…")
	}
	return lines
}

func (m *Model) counts() string {
	switch {
	case m.loadErr != nil:
		return m.loadErr.Error()
	case !m.loaded:
		return "reading the sessions…"
	}
	s := fmt.Sprintf("%s of %s", plural.Count(len(m.shown), "session", "sessions"), plural.Count(len(m.all), "session", "sessions"))
	q := strings.TrimSpace(m.input.Value())
	switch {
	case q == "":
	case m.textErr != "":
		s += " · full text: " + clean(m.textErr)
	case m.textQuery == q:
		s += fmt.Sprintf(" · full text: %s in %s", plural.Count(len(m.text), "session", "sessions"), m.textTook.Round(time.Millisecond))
	default:
		s += " · full text: searching…"
	}
	return s
}

// sessionLines are the rows of the sessions pane, w columns wide,
// scrolled to keep the cursor in view.
func (m *Model) sessionLines(w, n int) []string {
	out := make([]string, n)
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+n {
		m.top = m.cursor - n + 1
	}
	for i := 0; i < n && m.top+i < len(m.shown); i++ {
		r := &m.all[m.shown[m.top+i]]
		name := r.s.Name
		if name == "" && r.s.FirstMessage != nil {
			name = *r.s.FirstMessage
		}
		text := fmt.Sprintf("%s  %-8s %-8s  %s", when(r.s.ModifiedMs), r.s.Dialect, short(r.s.SessionID), clean(name))
		text = pad(ansi.Truncate(text, w-2, "…"), w-2)
		if m.top+i == m.cursor {
			if m.focusLeaf {
				out[i] = "> " + text
			} else {
				out[i] = selectedStyle.Render("> " + text)
			}
			continue
		}
		out[i] = "  " + text
	}
	return out
}

// leafLines are the rows of the leaves pane: a title, then the selected
// session's leaves, newest first, * on the active one.
func (m *Model) leafLines(w, n int) []string {
	out := make([]string, n)
	s := m.selected()
	if s == nil {
		out[0] = dimStyle.Render("no session matches")
		return out
	}
	out[0] = ansi.Truncate(dimStyle.Render("leaves of "+short(s.SessionID)), w, "…")
	ls, ok := m.leaves[s.Path]
	if !ok {
		if e, bad := m.leavesErr[s.Path]; bad {
			out[1] = ansi.Truncate(clean(e), w, "…")
		} else if n > 1 {
			out[1] = dimStyle.Render("reading…")
		}
		return out
	}
	top := 0
	if m.leafCursor >= n-1 {
		top = m.leafCursor - (n - 2)
	}
	for i := 0; i+1 < n && top+i < len(ls); i++ {
		l := ls[top+i]
		mark := " "
		if l.Active {
			mark = "*"
		}
		text := fmt.Sprintf("%s %s  %s  %s", mark, short(l.EntryID), when(l.TsMs), clean(l.Preview))
		text = pad(ansi.Truncate(text, w-2, "…"), w-2)
		if top+i == m.leafCursor {
			if m.focusLeaf {
				out[i+1] = selectedStyle.Render("> " + text)
			} else {
				out[i+1] = "> " + text
			}
			continue
		}
		out[i+1] = "  " + text
	}
	return out
}

// detail is the line under the lists: the selected session's workspace,
// and the full-text snippet that matched it or its first message.
func (m *Model) detail() string {
	s := m.selected()
	if s == nil {
		return ""
	}
	ws := s.Workspace
	if ws == "" {
		ws = "(no workspace)"
	}
	more := ""
	if snip, ok := m.text[s.Path]; ok && snip != "" {
		more = strings.NewReplacer(archive.MarkOpen, "", archive.MarkClose, "").Replace(snip)
	} else if s.FirstMessage != nil {
		more = *s.FirstMessage
	}
	return clean(ws) + dimStyle.Render(" · ") + clean(more)
}

// clean is s on one line, control characters shown as escapes (package
// visible): session text never moves the cursor or clears the screen.
func clean(s string) string { return visible.Escape(s, "") }

// when is a time in Unix milliseconds as the command line shows it (UTC).
func when(ms *int64) string {
	if ms == nil {
		return "                "
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02 15:04")
}

// short is an id cut to 8 characters, as grove's tables show them.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// pad fills s with spaces to w columns.
func pad(s string, w int) string {
	if d := w - ansi.StringWidth(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}
