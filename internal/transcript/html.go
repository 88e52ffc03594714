package transcript

import (
	"html/template"
	"strings"
	"sync"
)

// tag names a span's style for the HTML template.
func (s span) Tag() string {
	switch s.Style {
	case code:
		return "code"
	case strong:
		return "strong"
	case badge:
		return "badge"
	case alarm:
		return "alarm"
	case ref:
		return "ref"
	}
	return ""
}

// codeLine is a run of a code block's text; in a diff, one line with its
// class (add, del).
type codeLine struct {
	Text  string
	Class string
}

// codeView is a code block split for the page: Head shown, Rest folded.
type codeView struct {
	Caption line
	Lang    string
	Head    []codeLine
	Rest    []codeLine
	More    string // the summary of Rest
}

func newCodeView(p part) codeView {
	head, rest, n := splitLong(p.Text)
	v := codeView{Caption: p.Caption, Lang: p.Lang, Head: codeLines(p.Lang, head)}
	if n > 0 {
		v.Rest, v.More = codeLines(p.Lang, rest), moreLines(n)
	}
	return v
}

func codeLines(lang, s string) []codeLine {
	if lang != "diff" {
		return []codeLine{{Text: s}}
	}
	var ls []codeLine
	for _, l := range strings.SplitAfter(s, "\n") {
		c := ""
		switch {
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		if n := len(ls); n > 0 && ls[n-1].Class == c {
			ls[n-1].Text += l
		} else if l != "" {
			ls = append(ls, codeLine{l, c})
		}
	}
	return ls
}

// imageView is an image for the page: Src is set only for a PNG, JPEG, GIF
// or WebP whose data is base64, the types browsers show and goldmark deems
// safe; anything else is a placeholder.
type imageView struct {
	Src  template.URL
	Note string
}

func newImageView(im image) imageView {
	v := imageView{Note: imageNote(im.Mime, im.Data)}
	switch im.Mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		if im.Valid && !im.Skip {
			v.Src = template.URL("data:" + im.Mime + ";base64," + string(im.Data)) // base64 alphabet only: checked by decodeImage
		}
	}
	return v
}

func anchor(id string) string { return "e-" + id }

// page is the HTML page's templates, parsed at the first export
// (every other command starts without paying for it). HTML clones it;
// page itself is never executed.
var page = sync.OnceValue(func() *template.Template {
	t := template.Must(template.New("page").Funcs(template.FuncMap{
		"md":     mdHTML,
		"code":   newCodeView,
		"image":  newImageView,
		"anchor": anchor,
		"blank":  func(s string) bool { return strings.TrimSpace(s) == "" },
	}).Parse(`{{template "head" .}}{{range .Blocks}}{{template "block" .}}{{end}}{{template "foot"}}`))

	// The page's head (title and facts) and foot, between which HTML
	// writes the blocks one at a time.
	template.Must(t.New("ends").Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="grove export">
<title>{{.Title}}</title>
<style>` + css + `</style>
</head>
<body>
<main>
<header class="doc">
<h1>{{.Title}}</h1>
<dl class="facts">
{{range .Facts}}<dt>{{.Name}}</dt><dd>{{template "line" .Value}}</dd>
{{end}}</dl>
</header>
{{end}}{{define "foot"}}</main>
</body>
</html>
{{end}}`))

	// The page's parts; newlines between them are not output.
	template.Must(t.New("parts").Parse(`
{{define "block" -}}
{{if .Note -}}
<div class="note k-{{.Kind}}{{if .Error}} error{{end}}"{{if .ID}} id="{{anchor .ID}}"{{end}}>
<p>{{template "line" .Title}}{{if .Target}} <a href="#{{anchor .Target}}">↑</a>{{end}} {{template "meta" .Meta}}</p>
{{template "parts" .Parts}}</div>
{{else -}}
<section class="entry k-{{.Kind}}{{if .Error}} error{{end}}"{{if .ID}} id="{{anchor .ID}}"{{end}}>
<header><h2>{{template "line" .Title}}</h2> {{template "meta" .Meta}}</header>
{{template "parts" .Parts}}</section>
{{end}}{{end}}
{{define "meta"}}{{if .}}<span class="meta">{{range $i, $l := .}}{{if $i}} · {{end}}{{template "line" $l}}{{end}}</span>{{end}}{{end}}
{{define "line"}}{{range .}}{{if eq .Tag "code"}}<code>{{.Text}}</code>
{{- else if eq .Tag "ref"}}<code class="ref">{{.Text}}</code>
{{- else if eq .Tag "strong"}}<strong>{{.Text}}</strong>
{{- else if eq .Tag "badge"}}<span class="badge">{{.Text}}</span>
{{- else if eq .Tag "alarm"}}<span class="badge alarm">{{.Text}}</span>
{{- else}}{{.Text}}{{end}}{{end}}{{end}}
{{define "parts"}}{{range .}}{{template "part" .}}{{end}}{{end}}
{{define "part" -}}
{{if eq .Kind "md"}}{{if not (blank .Text)}}<div class="md">{{md .Text}}</div>
{{end}}
{{- else if eq .Kind "code"}}{{template "code" code .}}
{{- else if eq .Kind "fold"}}<details><summary>{{template "line" .Caption}}</summary>
{{template "parts" .Parts}}</details>
{{else if eq .Kind "group"}}<div class="group">
<p class="cap">{{template "line" .Caption}}</p>
{{template "parts" .Parts}}</div>
{{else if eq .Kind "quote"}}<div class="quote">
<p class="cap">{{template "line" .Caption}}</p>
{{template "parts" .Parts}}</div>
{{else if eq .Kind "image"}}{{with image .Image}}{{if .Src}}<figure><img src="{{.Src}}" alt="{{.Note}}"><figcaption>{{.Note}}</figcaption></figure>
{{else}}<p class="placeholder">[{{.Note}}]</p>
{{end}}{{end}}
{{- else}}<p>{{template "line" .Caption}}</p>
{{end}}{{end}}
{{define "code" -}}
<figure class="code">{{if .Caption}}<figcaption>{{template "line" .Caption}}</figcaption>{{end}}
<pre{{if .Lang}} data-lang="{{.Lang}}"{{end}}><code>{{template "runs" .Head}}</code></pre>
{{if .More}}<details class="more"><summary>{{.More}}</summary>
<pre><code>{{template "runs" .Rest}}</code></pre>
</details>
{{end}}</figure>
{{end}}
{{define "runs"}}{{range .}}{{if .Class}}<span class="{{.Class}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}{{end}}`))
	return t
})

// css is the page's only style: readable on a laptop, light or dark as the
// system prefers, and plain on paper.
const css = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--box:#f6f8fa;
--user:#0969da;--assistant:#8250df;--tool:#59636e;--shell:#1a7f37;--custom:#9a6700;--summary:#0550ae;--err:#cf222e;
--add:#dafbe1;--del:#ffebe9}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--box:#151b23;
--user:#4493f8;--assistant:#ab7df8;--tool:#9198a1;--shell:#3fb950;--custom:#d29922;--summary:#58a6ff;--err:#f85149;
--add:#12261e;--del:#2d1619}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main{max-width:54rem;margin:0 auto;padding:2rem 1.25rem 4rem}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 1rem;overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:0 0 2rem;padding:.75rem 1rem;
border:1px solid var(--line);border-radius:6px;font-size:.875rem}
.facts dt{color:var(--muted)}
.facts dd{margin:0;overflow-wrap:anywhere}
.entry{margin:1.5rem 0;padding:0 0 0 1rem;border-left:3px solid var(--accent,var(--line))}
.entry>header{display:flex;flex-wrap:wrap;align-items:baseline;gap:0 .75rem}
.entry h2{font-size:1rem;margin:0;color:var(--accent,var(--fg))}
.meta{color:var(--muted);font-size:.75rem}
.note{margin:.75rem 0;font-size:.875rem;color:var(--muted)}
.note p{margin:0}
.note strong{color:var(--fg);font-weight:600}
.k-user{--accent:var(--user)}.k-assistant{--accent:var(--assistant)}.k-tool{--accent:var(--tool)}
.k-shell{--accent:var(--shell)}.k-custom{--accent:var(--custom)}.k-summary{--accent:var(--summary)}
.k-unknown{--accent:var(--muted)}.error{--accent:var(--err)}
code,pre{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,monospace;font-size:.85rem}
pre{margin:.25rem 0;padding:.6rem .8rem;background:var(--box);border:1px solid var(--line);border-radius:6px;
white-space:pre-wrap;overflow-wrap:anywhere}
:not(pre)>code{padding:.05em .3em;background:var(--box);border-radius:4px;overflow-wrap:anywhere}
code.ref{background:none;color:var(--muted);font-size:.75rem}
.md{overflow-wrap:break-word}
.k-user>.md p{white-space:pre-line}
.md>:first-child{margin-top:.25rem}.md>:last-child{margin-bottom:.25rem}
.md h1{font-size:1.25rem}.md h2{font-size:1.125rem}.md h3,.md h4,.md h5,.md h6{font-size:1rem}
.md table{border-collapse:collapse}.md th,.md td{border:1px solid var(--line);padding:.2rem .5rem}
.md blockquote{margin:.5rem 0;padding:0 1rem;border-left:3px solid var(--line);color:var(--muted)}
figure{margin:.5rem 0}
figcaption{font-size:.75rem;color:var(--muted)}
img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
details{margin:.5rem 0}
details>:not(summary){margin-left:.75rem}
summary{cursor:pointer;color:var(--muted);font-size:.875rem}
.k-assistant>details .md{color:var(--muted);font-style:italic}
.group{margin:.5rem 0}
.cap{margin:.5rem 0 .25rem}
.quote{margin:.5rem 0;padding:0 1rem;background:var(--box);border:1px solid var(--line);border-radius:6px}
.badge{display:inline-block;padding:0 .45em;font-size:.75rem;line-height:1.5;border:1px solid var(--line);border-radius:1em;color:var(--muted);font-weight:normal}
.badge.alarm{color:#fff;background:var(--err);border-color:var(--err)}
.add{background:var(--add)}.del{background:var(--del)}
.placeholder{color:var(--muted);font-style:italic}
a{color:var(--user)}
@media print{:root{--bg:#fff;--fg:#000;--muted:#59636e;--line:#d1d9e0;--box:#f6f8fa;--add:#dafbe1;--del:#ffebe9}
body{font-size:10.5pt}main{max-width:none;padding:0}
details::details-content{content-visibility:visible;display:block}
.entry{border-left-width:2px}}
`
