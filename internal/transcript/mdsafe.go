package transcript

import (
	"bytes"
	"html"
	"html/template"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// gm parses and renders the Markdown of messages: CommonMark with GitHub's
// extensions, raw HTML never passed through (no WithUnsafe), and links
// guarded by linkGuard. Made at the first export, not when grove starts.
var gm = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(linkGuard{}, 1000))),
	)
})

// parse parses src, reporting a panic of the parser as ok == false.
func parse(src []byte) (doc ast.Node, ok bool) {
	defer func() {
		if recover() != nil {
			doc, ok = nil, false
		}
	}()
	return gm().Parser().Parse(text.NewReader(src)), true
}

// neutralize escapes the '<' of every raw HTML block and inline tag of the
// Markdown src, so the HTML shows as text instead of acting: a message
// holding "</details>" or "<script>" stays inside its block.
func neutralize(src string) string {
	if !strings.Contains(src, "<") {
		return src // nothing to escape: no parse, whose tree of a 25 MB text is 100 MB (SPEC §2.8)
	}
	b := []byte(src)
	doc, ok := parse(b)
	if !ok {
		return src
	}
	var spans []text.Segment
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.HTMLBlock:
			for i := 0; i < v.Lines().Len(); i++ {
				spans = append(spans, v.Lines().At(i))
			}
			if v.HasClosure() {
				spans = append(spans, v.ClosureLine)
			}
		case *ast.RawHTML:
			for i := 0; i < v.Segments.Len(); i++ {
				spans = append(spans, v.Segments.At(i))
			}
		}
		return ast.WalkContinue, nil
	})
	if len(spans) == 0 {
		return src
	}
	hit := make([]bool, len(b))
	for _, s := range spans {
		for i := max(s.Start, 0); i < min(s.Stop, len(b)); i++ {
			hit[i] = b[i] == '<'
		}
	}
	var out strings.Builder
	for i, c := range b {
		if hit[i] {
			out.WriteString("&lt;")
		} else {
			out.WriteByte(c)
		}
	}
	return out.String()
}

// sentinel is a paragraph appended to a text to see where the text ends.
const sentinel = "grove-transcript-sentinel"

// bounded reports whether the Markdown src ends all it opens: a paragraph
// written after it (past a blank line) stays a paragraph of its own instead
// of being swallowed by an unclosed code fence or HTML block.
func bounded(src string) bool {
	// Only a fenced code block or an HTML block runs on past a blank line
	// into a paragraph at column 0 (CommonMark 0.31 §4.4, §4.5, §4.6); a
	// text with neither opener is bounded without a parse (SPEC §2.8).
	if plainMarkdown(src) {
		return true
	}
	s := []byte(src + "\n\n" + sentinel)
	doc, ok := parse(s)
	if !ok {
		return false
	}
	p, ok := doc.LastChild().(*ast.Paragraph)
	if !ok || p.Lines().Len() != 1 {
		return false
	}
	seg := p.Lines().At(0)
	return seg.Start == len(s)-len(sentinel) && string(seg.Value(s)) == sentinel
}

// hugeText is the length, bytes, from which a text is not parsed as
// Markdown: goldmark's tree of a text costs several times the text (about
// 145 MB for 25 MB), so a longer text is shown as it is written,
// preformatted in HTML and, when parsing it could change it, a code block
// in Markdown (SPEC §2.8).
const hugeText = 1 << 20

// plainMarkdown reports whether src holds neither raw HTML nor a code
// fence, so neutralize and bounded leave it as it is without a parse.
func plainMarkdown(src string) bool {
	return !strings.Contains(src, "<") && !strings.Contains(src, "```") && !strings.Contains(src, "~~~")
}

// mdHTML renders the Markdown src to HTML: raw HTML shows as text, links
// keep only safe schemes and images become links, so the page loads
// nothing. If the renderer fails, the text is shown preformatted.
func mdHTML(src string) template.HTML {
	return template.HTML(mdHTMLBytes(src)) // goldmark escapes all text; raw HTML is omitted
}

// mdHTMLBytes is mdHTML's HTML as bytes, not yet copied into a string.
func mdHTMLBytes(src string) (h []byte) {
	defer func() {
		if recover() != nil {
			h = []byte("<pre>" + template.HTMLEscapeString(src) + "</pre>")
		}
	}()
	if len(src) >= hugeText {
		return []byte("<pre>" + template.HTMLEscapeString(src) + "</pre>") // see hugeText
	}
	b := []byte(neutralize(src))
	doc, ok := parse(b)
	var out bytes.Buffer
	out.Grow(len(b) + len(b)/8 + 64) // about its size: no doubling of a 25 MB text (SPEC §2.8)
	if !ok || gm().Renderer().Render(&out, b, doc) != nil {
		return []byte("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	return out.Bytes()
}

// linkGuard makes the AST safe to render into a self-contained page: a link
// whose scheme is not http, https or mailto becomes its text (no <a>, so
// nothing to click), an autolink with another scheme becomes text, and an
// image becomes a link to its source (never loaded), or its "image: alt"
// text when its source's scheme is refused.
type linkGuard struct{}

func (linkGuard) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	var images []*ast.Image
	var autos []*ast.AutoLink
	var refused []*ast.Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Link:
			if !safeURL(v.Destination) {
				refused = append(refused, v)
			}
		case *ast.Image:
			images = append(images, v)
		case *ast.AutoLink:
			if !safeURL(v.URL(source)) {
				autos = append(autos, v)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, img := range images {
		label := ast.NewString([]byte("image: "))
		if !safeURL(img.Destination) {
			unwrap(img, label)
			continue
		}
		l := ast.NewLink()
		l.Destination, l.Title = img.Destination, img.Title
		l.AppendChild(l, label)
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			l.AppendChild(l, c)
			c = next
		}
		img.Parent().ReplaceChild(img.Parent(), img, l)
	}
	for _, l := range refused {
		unwrap(l)
	}
	for _, a := range autos {
		a.Parent().ReplaceChild(a.Parent(), a, ast.NewString(a.URL(source)))
	}
}

// unwrap puts first, then n's children, in n's place.
func unwrap(n ast.Node, first ...ast.Node) {
	p := n.Parent()
	for _, f := range first {
		p.InsertBefore(p, n, f)
	}
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		p.InsertBefore(p, n, c)
		c = next
	}
	p.RemoveChild(p, n)
}

// safeURL reports whether u, a link destination as the Markdown source
// spells it, is relative or uses http, https or mailto, read as the
// browser reads the href it becomes: character references resolved
// (java&#115;cript:, javascript&colon;), then what browsers ignore
// (whitespace and control characters) dropped.
func safeURL(u []byte) bool {
	s := strings.ToLower(strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, html.UnescapeString(string(u))))
	i := strings.IndexAny(s, ":/?#")
	if i < 0 || s[i] != ':' {
		return true
	}
	switch s[:i] {
	case "http", "https", "mailto":
		return true
	}
	return false
}
