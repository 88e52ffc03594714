package transcript

import (
	"bytes"
	"html"
	"io"
	"strconv"
	"strings"
)

// foldAfter is how many lines of a long code block are shown before the
// rest is folded; a block is only folded when that hides at least
// foldSlack lines.
const (
	foldAfter = 40
	foldSlack = 10
)

// mdWriter is where Markdown goes: a bufio.Writer on the output, or a
// bytes.Buffer for a part quoted afterwards.
type mdWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// writeHead writes the title and the facts of v as CommonMark with
// GitHub's extensions (<details>, <sub>); mdBlock writes each block.
func writeHead(w mdWriter, v view) {
	w.WriteString("# " + mdEscape(oneLine(v.Title)) + "\n\n")
	for _, f := range v.Facts {
		w.WriteString("- **" + f.Name + ":** " + mdLine(f.Value, false) + "\n")
	}
	w.WriteString("\n---\n\n")
}

func mdBlock(w mdWriter, b block) {
	if b.Note {
		w.WriteString(mdLine(b.Title, false) + " " + mdMeta(b.Meta) + "\n\n")
	} else {
		w.WriteString("### " + mdLine(b.Title, false) + "\n")
		if len(b.Meta) > 0 {
			w.WriteString(mdMeta(b.Meta) + "\n")
		}
		w.WriteString("\n")
	}
	mdParts(w, b.Parts)
}

func mdParts(w mdWriter, ps []part) {
	for _, p := range ps {
		mdPartOut(w, p)
	}
}

func mdPartOut(w mdWriter, p part) {
	switch p.Kind {
	case pMarkdown:
		if len(p.Text) >= hugeText && !plainMarkdown(p.Text) {
			if strings.TrimSpace(p.Text) != "" {
				mdCode(w, nil, "", p.Text) // not parsed: see hugeText
			}
			return
		}
		s := strings.TrimRight(neutralize(p.Text), "\n ")
		if strings.TrimSpace(s) == "" {
			return
		}
		if !bounded(s) {
			mdCode(w, nil, "", p.Text)
			return
		}
		w.WriteString(s) // not s + "\n\n": no copy of a 25 MB text (SPEC §2.8)
		w.WriteString("\n\n")
	case pCode:
		mdCode(w, p.Caption, p.Lang, p.Text)
	case pFold:
		w.WriteString("<details><summary>" + htmlLine(p.Caption) + "</summary>\n\n")
		mdParts(w, p.Parts)
		w.WriteString("</details>\n\n")
	case pGroup:
		w.WriteString(mdLine(p.Caption, false) + "\n\n")
		mdParts(w, p.Parts)
	case pQuote:
		var in bytes.Buffer
		in.WriteString(mdLine(p.Caption, false) + "\n\n")
		mdParts(&in, p.Parts)
		for _, l := range strings.Split(strings.TrimRight(in.String(), "\n"), "\n") {
			if l == "" {
				w.WriteString(">\n")
			} else {
				w.WriteString("> " + l + "\n")
			}
		}
		w.WriteString("\n")
	case pImage:
		w.WriteString("*" + mdEscape("["+imageNote(p.Image.Mime, p.Image.Data)+"]") + "*\n\n")
	default: // pLine
		w.WriteString(mdLine(p.Caption, false) + "\n\n")
	}
}

// mdCode writes text as a fenced code block, its fence longer than any run
// of backticks in it; past foldAfter lines the rest goes under <details>.
func mdCode(w mdWriter, caption line, lang, text string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	if len(caption) > 0 {
		w.WriteString(mdLine(caption, false) + "\n")
	}
	head, rest, n := splitLong(text)
	block := func(s string) {
		w.WriteString(fence + lang + "\n" + s)
		if s != "" && !strings.HasSuffix(s, "\n") {
			w.WriteString("\n")
		}
		w.WriteString(fence + "\n\n")
	}
	block(head)
	if n > 0 {
		w.WriteString("<details><summary>" + moreLines(n) + "</summary>\n\n")
		block(rest)
		w.WriteString("</details>\n\n")
	}
}

// splitLong splits text after foldAfter lines when more than foldSlack lines
// would follow; n is the number of lines in rest.
func splitLong(text string) (head, rest string, n int) {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= foldAfter+foldSlack {
		return text, "", 0
	}
	return strings.Join(lines[:foldAfter], ""), strings.Join(lines[foldAfter:], ""), len(lines) - foldAfter
}

func moreLines(n int) string {
	return strconv.Itoa(n) + " more lines"
}

// mdMeta is an entry's small print: <sub>time · id · …</sub>.
func mdMeta(m []line) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, len(m))
	for i, l := range m {
		parts[i] = mdLine(l, true)
	}
	return "<sub>" + strings.Join(parts, " · ") + "</sub>"
}

// mdLine writes spans as Markdown inline text on one line: line breaks in a
// value become "↵".
func mdLine(l line, inSub bool) string {
	var b strings.Builder
	for _, s := range l {
		t := oneLine(s.Text)
		switch {
		case t == "":
		case s.Style == code:
			b.WriteString(codeSpan(t))
		case s.Style == ref && inSub:
			b.WriteString(codeSpan(t))
		case s.Style == ref:
			b.WriteString("<sub>" + codeSpan(t) + "</sub>")
		case s.Style == strong:
			b.WriteString("**" + mdEscape(t) + "**")
		case s.Style == badge:
			b.WriteString("*" + mdEscape(t) + "*")
		case s.Style == alarm:
			b.WriteString("**⚠ " + mdEscape(t) + "**")
		default:
			b.WriteString(mdEscape(t))
		}
	}
	return b.String()
}

// htmlLine writes spans as HTML for a line that Markdown passes through as
// raw HTML (a <summary>).
func htmlLine(l line) string {
	var b strings.Builder
	for _, s := range l {
		t := html.EscapeString(oneLine(s.Text))
		switch s.Style {
		case code, ref:
			b.WriteString("<code>" + t + "</code>")
		case strong, alarm:
			b.WriteString("<b>" + t + "</b>")
		case badge:
			b.WriteString("<i>" + t + "</i>")
		default:
			b.WriteString(t)
		}
	}
	return b.String()
}

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", "↵", "\r", "↵", "\n", "↵").Replace(s)
}

// mdEscape backslash-escapes the characters that start Markdown inline
// syntax (and GitHub's $math$), so s reads as the text it is.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>#&~$|", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codeSpan writes s as an inline code span whose backtick string is longer
// than any run inside it.
func codeSpan(s string) string {
	f := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return f + " " + s + " " + f
	}
	return f + s + f
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
