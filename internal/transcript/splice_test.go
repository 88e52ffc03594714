package transcript

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// HTML splices image data and long Markdown's HTML in after the template
// (SPEC §2.8); the page is byte for byte the one html/template makes of
// the same view by itself: '+' in base64 escaped, line-broken base64 left
// to the template, raw HTML in the Markdown shown as text, and a message
// that holds the stand-in's prefix left alone.
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
	d := Doc{SessionID: "s", Dialect: "pi", Version: 3, Leaf: "e4", Entries: []Entry{
		raw("e1", "", `{"role":"user","content":[{"type":"image","data":"`+img+`","mimeType":"image/png"}]}`),
		raw("e2", "e1", `{"role":"user","content":[{"type":"image","data":"`+broken+`","mimeType":"image/jpeg"}]}`),
		raw("e3", "e2", `{"role":"user","content":[{"type":"text","text":`+jsonQuote(long)+`}]}`),
		raw("e4", "e3", `{"role":"user","content":"grove-splice-0m0 and data:image/png;base64,grove-splice-"}`),
	}}
	var spliced bytes.Buffer
	if err := HTML(&spliced, d); err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	tmpl, err := page.Clone() // page itself is never executed: HTML clones it
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
}

func jsonQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
