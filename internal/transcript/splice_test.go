package transcript

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// HTML splices image data and long Markdown's HTML in after the template
// (SPEC §2.8); the page is byte for byte the one html/template makes of
// the same view by itself: '+' in base64 escaped, line-broken base64 left
// to the template, raw HTML in the Markdown shown as text, a huge text
// (hugeText and more) escaped and preformatted in pieces, and a message
// that holds the stand-in's prefix left alone. With Release the page is
// the same and each entry's line is let go.
func TestHTML_SplicedEqualsTemplate(t *testing.T) {
	img := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xef, 0xbe, 0x01}, 40000)) // '+' and '/' throughout
	broken := img[:76] + `\n` + img[76:152]
	long := strings.Repeat("Some **bold** text, a [link](https://example.com) and <b>raw</b> & more.\n\n", 2000)
	raw := func(id, parent, msg string) Entry {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return Entry{ID: id, Type: "message", Role: "user", Raw: []byte(`{"type":"message","id":"` + id + `","parentId":` + p + `,"message":` + msg + `}`)}
	}
	// Quotes, ampersands, tags and two-byte runes across every piece's end.
	huge := strings.Repeat("é <script>alert('x')</script> & \"q\" **not bold**\n", hugeText/40)
	d := Doc{SessionID: "s", Dialect: "pi", Version: 3, Leaf: "e5", Entries: []Entry{
		raw("e1", "", `{"role":"user","content":[{"type":"image","data":"`+img+`","mimeType":"image/png"}]}`),
		raw("e2", "e1", `{"role":"user","content":[{"type":"image","data":"`+broken+`","mimeType":"image/jpeg"}]}`),
		raw("e3", "e2", `{"role":"user","content":[{"type":"text","text":`+jsonQuote(long)+`}]}`),
		raw("e4", "e3", `{"role":"user","content":"grove-splice-0m0 and data:image/png;base64,grove-splice-"}`),
		raw("e5", "e4", `{"role":"user","content":`+jsonQuote(huge)+`}`),
	}}
	if len(huge) < hugeText {
		t.Fatalf("huge text is %d bytes, want at least %d", len(huge), hugeText)
	}
	var spliced bytes.Buffer
	if err := HTML(&spliced, d); err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	tmpl, err := page().Clone() // page itself is never executed: HTML clones it
	if err == nil {
		err = tmpl.Execute(&plain, build(d))
	}
	if err != nil {
		t.Fatal(err)
	}
	if spliced.String() != plain.String() {
		t.Errorf("spliced page differs from the template's: %s", testutil.FirstDiff(spliced.String(), plain.String()))
	}
	if !strings.Contains(spliced.String(), strings.ReplaceAll(img, "+", "&#43;")) || !strings.Contains(spliced.String(), "&lt;b&gt;raw") {
		t.Error("the page lacks the image or the Markdown")
	}
	if want := `<div class="md"><pre>` + template.HTMLEscapeString(strings.TrimRight(huge, "\n")) + "\n</pre></div>"; !strings.Contains(spliced.String(), want) {
		t.Error("the page lacks the huge text escaped and preformatted")
	}

	d.Release = true
	var released bytes.Buffer
	if err := HTML(&released, d); err != nil {
		t.Fatal(err)
	}
	if released.String() != plain.String() {
		t.Errorf("page with Release differs: %s", testutil.FirstDiff(released.String(), plain.String()))
	}
	for _, e := range d.Entries {
		if e.Raw != nil {
			t.Errorf("entry %s: Raw kept after the page was written with Release", e.ID)
		}
	}
}

func jsonQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// A text of hugeText bytes or more is never parsed (SPEC §2.8): in HTML
// it is preformatted (no <strong> for its **bold**); in Markdown it is
// written as it is when parsing could not change it, else verbatim in a
// code block (its raw HTML as written, not escaped by a parse).
func TestHugeText_NotParsed(t *testing.T) {
	plainText := strings.Repeat("Some **bold** words.\n\n", hugeText/20)
	htmlText := strings.Repeat("Some **bold** <b>words</b>.\n\n", hugeText/28)
	msg := func(id, parent, text string) Entry {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return Entry{ID: id, Type: "message", Role: "user",
			Raw: []byte(`{"type":"message","id":"` + id + `","parentId":` + p + `,"message":{"role":"user","content":` + jsonQuote(text) + `}}`)}
	}
	d := Doc{SessionID: "s", Dialect: "pi", Version: 3, Leaf: "b", Entries: []Entry{msg("a", "", plainText), msg("b", "a", htmlText)}}
	md, page := render(t, d)
	if strings.Contains(page, "<strong>") || !strings.Contains(page, "<pre>Some **bold** words.\n") || !strings.Contains(page, "Some **bold** &lt;b&gt;words&lt;/b&gt;.") {
		t.Error("HTML: want both huge texts preformatted and escaped, not rendered")
	}
	if !strings.Contains(md, "\n\n"+strings.TrimRight(plainText, "\n")+"\n\n") {
		t.Error("Markdown: want the huge plain text as it is")
	}
	if !strings.Contains(md, "```\nSome **bold** <b>words</b>.\n") || strings.Contains(md, "&lt;b>") {
		t.Error("Markdown: want the huge text with raw HTML verbatim in a code block")
	}
}
