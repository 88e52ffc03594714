package transcript

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// doc wraps lines (each one entry's Raw) into a Doc; the entry type and
// role are read from the line when it has them.
func doc(lines ...string) Doc {
	d := Doc{SessionID: "s-test", Workspace: "/w", Path: "t.jsonl", Dialect: "pi", Version: 3, Leaf: "e" + fmt.Sprint(len(lines))}
	for i, l := range lines {
		var probe struct {
			Type    string `json:"type"`
			Message struct {
				Role string `json:"role"`
			} `json:"message"`
		}
		_ = json.Unmarshal([]byte(l), &probe)
		ms := int64(1772524800000 + i*1000)
		d.Entries = append(d.Entries, Entry{ID: fmt.Sprintf("e%d", i+1), Type: probe.Type, Role: probe.Message.Role, TimestampMs: &ms, Raw: json.RawMessage(l)})
	}
	return d
}

// msg is a message entry line holding the message m (a JSON object).
func msg(m string) string { return `{"type":"message","message":` + m + `}` }

// js quotes s as a JSON string.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestMarkdown_ThinkingIsFolded(t *testing.T) {
	d := doc(msg(`{"role":"assistant","content":[{"type":"thinking","thinking":"PLAN-42: read first"},{"type":"text","text":"Done."}],"provider":"p","model":"m","stopReason":"stop"}`))
	md, page := render(t, d)
	for _, tc := range []struct{ name, out, want string }{
		{"Markdown", md, "<details><summary>Thinking</summary>\n\nPLAN-42: read first\n\n</details>"},
		{"HTML", page, "<details><summary>Thinking</summary>\n<div class=\"md\"><p>PLAN-42: read first</p>\n</div>\n</details>"},
	} {
		if !strings.Contains(tc.out, tc.want) {
			t.Errorf("%s(thinking) = %q, want it to contain %q", tc.name, tc.out, tc.want)
		}
	}
}

func TestRender_ToolCallsAndResultsInFull(t *testing.T) {
	var long []string
	for i := range 300 {
		long = append(long, fmt.Sprintf("line-%03d of the output", i))
	}
	out := strings.Join(long, "\n")
	cmd := "for i in $(seq 1 3); do\n  echo step-$i\ndone"
	d := doc(
		msg(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":`+js(cmd)+`,"timeout":77}},{"type":"toolCall","id":"c2","name":"edit","arguments":{"path":"a.go","oldText":"OLD-TEXT","newText":"NEW-TEXT"}}],"stopReason":"toolUse"}`),
		msg(`{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":`+js(out)+`}],"isError":false}`),
	)
	md, page := render(t, d)
	wants := append([]string{"step-$i", "OLD-TEXT", "NEW-TEXT", "77", "a.go"}, long...)
	for _, w := range wants {
		if !strings.Contains(md, w) {
			t.Errorf("Markdown(tool call and result) lacks %q, want every argument and output line", w)
		}
		if !strings.Contains(page, w) {
			t.Errorf("HTML(tool call and result) lacks %q, want every argument and output line", w)
		}
	}
	if !strings.Contains(md, "```sh\n"+cmd+"\n```") {
		t.Errorf("Markdown(bash call) = %q, want the command in a ```sh block", md)
	}
	if !strings.Contains(md, "<details><summary>260 more lines</summary>") {
		t.Errorf("Markdown(300-line output) has no fold of the last 260 lines, want one")
	}
}

func TestRender_ErrorResultIsMarked(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       bool
	}{
		{"isError true", msg(`{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"boom"}],"isError":true}`), true},
		{"isError false", msg(`{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"fine"}],"isError":false}`), false},
		{"isError not a boolean", msg(`{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[],"isError":"yes"}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, page := render(t, doc(tc.line))
			if got := strings.Contains(md, "**⚠ error**"); got != tc.want {
				t.Errorf("Markdown(%s) marks an error: %v, want %v\n%s", tc.name, got, tc.want, md)
			}
			if got := strings.Contains(page, `<span class="badge alarm">error</span>`) && strings.Contains(page, `k-tool error"`); got != tc.want {
				t.Errorf("HTML(%s) marks an error: %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

func TestRender_Images(t *testing.T) {
	png := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("PNGDATA!"), 300)) // 2,400 bytes
	svg := base64.StdEncoding.EncodeToString([]byte("<svg onload=alert(1)>"))
	for _, tc := range []struct {
		name, line string
		md, html   string // what each output must contain
		embedded   bool   // the data is in the HTML
	}{
		{"user png", msg(`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"` + png + `","mimeType":"image/png"}]}`),
			`*\[image: image/png, 2.4 KB\]*`, `<img src="data:image/png;base64,`, true},
		{"tool result png", msg(`{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"image","data":"` + png + `","mimeType":"image/png"}],"isError":false}`),
			`image: image/png, 2.4 KB`, `<img src="data:image/png;base64,`, true},
		{"svg is not embedded", msg(`{"role":"user","content":[{"type":"image","data":"` + svg + `","mimeType":"image/svg+xml"}]}`),
			`image: image/svg+xml, 21 B`, `[image: image/svg&#43;xml, 21 B]`, false},
		{"png that is not base64", msg(`{"role":"user","content":[{"type":"image","data":"` + png[:50] + `!!","mimeType":"image/png"}]}`),
			`that is not base64`, `that is not base64`, false},
		{"image inside an unknown role", msg(`{"role":"screenshot","content":[{"type":"image","data":"` + png + `","mimeType":"image/png"}]}`),
			`[image: image/png, 2.4 KB]`, `[image: image/png, 2.4 KB]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, page := render(t, doc(tc.line))
			data := png
			if strings.Contains(tc.line, svg) {
				data = svg
			}
			if strings.Contains(md, data[:min(len(data), 40)]) {
				t.Errorf("Markdown(%s) contains base64 image data, want a placeholder", tc.name)
			}
			if !strings.Contains(md, tc.md) {
				t.Errorf("Markdown(%s) = %q, want it to contain %q", tc.name, md, tc.md)
			}
			if !strings.Contains(page, tc.html) {
				t.Errorf("HTML(%s) lacks %q", tc.name, tc.html)
			}
			if got := strings.Contains(page, data[:min(len(data), 40)]); got != tc.embedded {
				t.Errorf("HTML(%s) embeds the data: %v, want %v", tc.name, got, tc.embedded)
			}
		})
	}
}

// nasty is text that tries to leave its block: a code fence, a closing
// </details>, a script, a javascript: link, an external image; unclosed
// adds a fence that is never closed.
const (
	nasty    = "before ```` fence\n```\nx\n```\n</details>\n<script>alert(1)</script>\n<img src=x onerror=alert(2)>\n[x](javascript:alert(3)) ![p](http://tracker.example/p.png)"
	unclosed = nasty + "\n```go\nunclosed"
)

// TestRender_HostileTextStaysInItsBlock puts nasty in every place a value
// can go, followed by one user message: the HTML must carry no script and
// load nothing, and the Markdown, parsed as GitHub would, must keep every
// entry heading and hold no raw HTML of ours' making from the text.
func TestRender_HostileTextStaysInItsBlock(t *testing.T) {
	for _, text := range []string{nasty, unclosed} {
		hostile(t, text)
	}
}

func hostile(t *testing.T, nasty string) {
	n := js(nasty)
	cases := []struct{ name, line string }{
		{"user string", msg(`{"role":"user","content":` + n + `}`)},
		{"user text block", msg(`{"role":"user","content":[{"type":"text","text":` + n + `}]}`)},
		{"assistant text", msg(`{"role":"assistant","content":[{"type":"text","text":` + n + `}]}`)},
		{"thinking", msg(`{"role":"assistant","content":[{"type":"thinking","thinking":` + n + `}]}`)},
		{"tool call", msg(`{"role":"assistant","content":[{"type":"toolCall","id":` + n + `,"name":` + n + `,"arguments":{"command":` + n + `,` + n + `:` + n + `}}]}`)},
		{"tool result", msg(`{"role":"toolResult","toolCallId":` + n + `,"toolName":` + n + `,"content":[{"type":"text","text":` + n + `}],"details":{"diff":` + n + `},"isError":true}`)},
		{"bash execution", msg(`{"role":"bashExecution","command":` + n + `,"output":` + n + `,"exitCode":1}`)},
		{"hook message", msg(`{"role":"hookMessage","customType":` + n + `,"content":` + n + `,"display":false}`)},
		{"error message", msg(`{"role":"assistant","content":[],"stopReason":"error","errorMessage":` + n + `}`)},
		{"unknown role", msg(`{"role":` + n + `,"x":` + n + `}`)},
		{"compaction", `{"type":"compaction","summary":` + n + `,"tokensBefore":1}`},
		{"branch summary", `{"type":"branch_summary","summary":` + n + `,"fromId":` + n + `}`},
		{"custom message", `{"type":"custom_message","customType":"x","content":[{"type":"text","text":` + n + `}]}`},
		{"custom entry", `{"type":"custom","customType":` + n + `,"data":` + n + `}`},
		{"label", `{"type":"label","targetId":` + n + `,"label":` + n + `}`},
		{"session info", `{"type":"session_info","name":` + n + `}`},
		{"model change", `{"type":"model_change","provider":` + n + `,"modelId":` + n + `}`},
		{"metadata", `{"type":"metadata","key":` + n + `,"value":` + n + `}`},
		{"unknown type", `{"type":` + n + `,"v":` + n + `}`},
		{"not JSON", nasty},
	}
	for _, tc := range cases {
		if nasty == unclosed {
			tc.name += " unclosed"
		}
		t.Run(tc.name, func(t *testing.T) {
			d := doc(tc.line, msg(`{"role":"user","content":"AFTER-MARKER"}`))
			d.Name = nasty
			d.Entries[0].Label = nasty
			md, page := render(t, d)
			low := strings.ToLower(page)
			for _, bad := range []string{"<script", "<img src=x", `href="javascript:`, `src="http`} {
				if strings.Contains(low, bad) {
					t.Errorf("HTML(%s) contains %q, want it escaped or dropped", tc.name, bad)
				}
			}
			checkMarkdown(t, tc.name, md)
		})
	}
}

// checkMarkdown parses md as CommonMark+GFM and fails when raw HTML other
// than the renderer's own tags appears, or when the last entry's heading
// ("### User" before AFTER-MARKER) was swallowed.
func checkMarkdown(t *testing.T, name, md string) {
	t.Helper()
	src := []byte(md)
	doc, ok := parse(src)
	if !ok {
		t.Fatalf("Markdown(%s) does not parse", name)
	}
	ours := map[string]bool{"<sub>": true, "</sub>": true, "<details>": true, "</details>": true, "<summary>": true, "</summary>": true}
	lastHeading := ""
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.RawHTML:
			for i := 0; i < v.Segments.Len(); i++ {
				seg := v.Segments.At(i)
				if s := string(seg.Value(src)); !ours[s] {
					t.Errorf("Markdown(%s) has raw inline HTML %q from the text, want it escaped", name, s)
				}
			}
		case *ast.HTMLBlock:
			var b strings.Builder
			for i := 0; i < v.Lines().Len(); i++ {
				seg := v.Lines().At(i)
				b.Write(seg.Value(src))
			}
			if s := b.String(); !strings.HasPrefix(s, "<details><summary>") && s != "</details>\n" {
				t.Errorf("Markdown(%s) has an HTML block %q from the text, want it escaped", name, s)
			}
		case *ast.Heading:
			lastHeading = string(v.Lines().Value(src))
		}
		return ast.WalkContinue, nil
	})
	if lastHeading != "User" {
		t.Errorf("Markdown(%s): last heading = %q, want \"User\" (the text escaped its block)\n%s", name, lastHeading, md)
	}
	if !strings.Contains(md, "AFTER-MARKER") {
		t.Errorf("Markdown(%s) lost the entry after the hostile one", name)
	}
}

func TestCodeFence(t *testing.T) {
	for _, tc := range []struct{ name, text, fence string }{
		{"plain", "x", "```"},
		{"three backticks", "a ``` b", "````"},
		{"five backticks", "`````", "``````"},
		{"tildes do not count", "~~~~~~", "```"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			mdCode(&b, nil, "", tc.text)
			if got := b.String(); !strings.HasPrefix(got, tc.fence+"\n") || strings.HasPrefix(got, tc.fence+"`") {
				t.Errorf("mdCode(%q) = %q, want fence %q", tc.text, got, tc.fence)
			}
		})
	}
}

func TestCodeSpan(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"id", "`id`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"x``y", "```x``y```"},
	} {
		if got := codeSpan(tc.in); got != tc.want {
			t.Errorf("codeSpan(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRender_Malformed feeds committed-but-odd entries: each renders, and
// what was in the line is still shown.
func TestRender_Malformed(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"not JSON", `{"type":"message",`, `{"type":"message",`},
		{"array", `[1,"KEEP-ME"]`, "KEEP-ME"},
		{"message not an object", `{"type":"message","message":"KEEP-ME"}`, "KEEP-ME"},
		{"no message", `{"type":"message","x":"KEEP-ME"}`, "KEEP-ME"},
		{"content a number", msg(`{"role":"user","content":4242}`), "4242"},
		{"content object", msg(`{"role":"toolResult","toolName":"t","content":{"KEEP-ME":1}}`), "KEEP-ME"},
		{"block not an object", msg(`{"role":"assistant","content":["KEEP-ME"]}`), "KEEP-ME"},
		{"unknown block", msg(`{"role":"assistant","content":[{"type":"audio","KEEP-ME":1}]}`), "KEEP-ME"},
		{"arguments a string", msg(`{"role":"assistant","content":[{"type":"toolCall","name":"bash","arguments":"KEEP-ME"}]}`), "KEEP-ME"},
		{"command a number", msg(`{"role":"assistant","content":[{"type":"toolCall","name":"bash","arguments":{"command":4242}}]}`), "4242"},
		{"image data a number", msg(`{"role":"user","content":[{"type":"image","data":4242}]}`), "4242"},
		{"no role", msg(`{"content":"KEEP-ME"}`), "KEEP-ME"},
		{"unknown role", msg(`{"role":"robot","KEEP-ME":true}`), "KEEP-ME"},
		{"summary a number", `{"type":"compaction","summary":4242}`, "4242"},
		{"empty branch summary", `{"type":"branch_summary","summary":"","fromId":"KEEP-ME"}`, "(empty summary)"},
		{"label without target", `{"type":"label","label":"KEEP-ME"}`, "KEEP-ME"},
		{"model change without model", `{"type":"model_change","provider":"KEEP-ME"}`, "KEEP-ME"},
		{"unknown type", `{"type":"future","KEEP-ME":[1,2]}`, "KEEP-ME"},
		{"custom without data", `{"type":"custom","customType":"c","x":"KEEP-ME"}`, "KEEP-ME"},
		{"invalid UTF-8", "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"KEEP-ME \xff\"}}", "KEEP-ME"},
		{"exit code null", msg(`{"role":"bashExecution","command":"KEEP-ME","exitCode":null,"cancelled":true}`), "cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, page := render(t, doc(tc.line))
			if !strings.Contains(md, tc.want) {
				t.Errorf("Markdown(%s) = %q, want it to contain %q", tc.name, md, tc.want)
			}
			if !strings.Contains(page, template.HTMLEscapeString(tc.want)) {
				t.Errorf("HTML(%s) lacks %q", tc.name, tc.want)
			}
		})
	}
}

func TestNeutralize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a <b>bold</b> c", "a &lt;b>bold&lt;/b> c"},
		{"<div>\nx\n</div>", "&lt;div>\nx\n&lt;/div>"},
		{"`<code>` stays", "`<code>` stays"},
		{"```\n<pre>\n```", "```\n<pre>\n```"},
		{"1 < 2", "1 < 2"},
	} {
		if got := neutralize(tc.in); got != tc.want {
			t.Errorf("neutralize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// parseMD is parse for tests that only need the tree.
func parseMD(s string) ast.Node {
	return gm().Parser().Parse(text.NewReader([]byte(s)))
}

func TestBounded(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"plain text", true},
		{"```go\nx\n```", true},
		{"```go\nx", false},
		{"- item\n  ```\n  open in a list", true},
		{"> quote\n> ```\n> open in a quote", true},
		{"~~~\nopen tilde", false},
	} {
		if got := bounded(tc.in); got != tc.want {
			t.Errorf("bounded(%q) = %v, want %v (tree: %d children)", tc.in, got, tc.want, parseMD(tc.in).ChildCount())
		}
	}
}

// A string escaping half of a UTF-16 surrogate pair (an agent cut the text
// mid-emoji) shows U+FFFD in both formats; a whole pair shows its
// character (SPEC §2.9).
func TestRender_LoneSurrogateIsReplacementCharacter(t *testing.T) {
	d := doc(msg(`{"role":"user","content":"ship it \ud83d"}`),
		msg(`{"role":"assistant","content":[{"type":"text","text":"\ude80 shipped \ud83c\udf33"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"echo \ud83d"}}],"provider":"p","model":"m"}`))
	md, page := render(t, d)
	for name, out := range map[string]string{"Markdown": md, "HTML": page} {
		for _, want := range []string{"ship it \uFFFD", "\uFFFD shipped \U0001F333", "echo \uFFFD"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s = %q, want it to contain %q", name, out, want)
			}
		}
		if strings.Contains(out, `\ud83d`) || strings.Contains(out, `\ude80`) {
			t.Errorf("%s shows the escape itself: %q", name, out)
		}
	}
}

// A link or image whose scheme the guard refuses is its text, not a link
// without a destination (href=""); a safe one stays a link, an image a
// link to its source (SPEC §9: links only http, https, mailto and
// in-page).
func TestMarkdown_RefusedLinksAreText(t *testing.T) {
	for _, tt := range []struct{ md, want string }{
		{"[x](javascript:alert(1))", "<p>x</p>\n"},
		{"read [the **notes**](JaVaScRiPt:alert(1)) first", "<p>read the <strong>notes</strong> first</p>\n"},
		{"[v](vbscript:msgbox) [d](data:text/html,x)", "<p>v d</p>\n"},
		{"![scan](javascript:alert(1))", "<p>image: scan</p>\n"},
		{"[![i](javascript:x)](javascript:y)", "<p>image: i</p>\n"},
		// Character references and escapes spell the scheme too: the
		// browser reads the href after they are resolved.
		{"[e](java&#115;cript:alert(9))", "<p>e</p>\n"},
		{"[e](&#106;avascript&colon;alert(9))", "<p>e</p>\n"},
		{"[e](javascript&#58;alert(9))", "<p>e</p>\n"},
		{"[e](java\\script:alert(9))", "<p>e</p>\n"},
		{"![s](data&#58;image/png,x)", "<p>image: s</p>\n"},
		{"[a](#x&amp;y)", `<p><a href="#x&amp;y">a</a></p>` + "\n"},
		{"[ok](https://example.org/) [top](#entry-a)", `<p><a href="https://example.org/">ok</a> <a href="#entry-a">top</a></p>` + "\n"},
		{"![p](https://example.org/p.png)", `<p><a href="https://example.org/p.png">image: p</a></p>` + "\n"},
	} {
		if got := string(mdHTML(tt.md)); got != tt.want {
			t.Errorf("mdHTML(%q) = %q, want %q", tt.md, got, tt.want)
		}
	}
}
