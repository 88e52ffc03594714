package transcript

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"html/template"
	"io"
	"strconv"
)

// imageSplicer keeps the base64 of a page's images, and the HTML of long
// Markdown, out of html/template, which would copy a 50 MB image four
// times over (the data URL, its normalizer, its attribute escaper, fmt)
// and rendered Markdown twice (a string, fmt) (SPEC §2.8). The template
// gets a short stand-in, unique to this page by a random nonce, and the
// writer between the template and the output replaces it, as the whole
// of one write (text/template writes each value in one), with the bytes:
// image data escaped as html/template escapes it in a quoted attribute
// (base64's '+' is the only character it changes), Markdown's HTML as it
// is (template.HTML is not escaped either).
type imageSplicer struct {
	w      io.Writer
	nonce  string
	images [][]byte
	html   [][]byte // rendered Markdown, dropped once written
	texts  []string // huge texts, shown preformatted, dropped once written
	err    error
}

// spliceAbove is the length, bytes, from which Markdown's HTML is spliced.
const spliceAbove = 64 << 10

// md is mdHTML with a stand-in for a long text's HTML. A text of
// hugeText bytes or more is not parsed at all: its stand-in is replaced by
// the text escaped and preformatted, written from the text itself.
func (s *imageSplicer) md(src string) template.HTML {
	if len(src) < spliceAbove {
		return mdHTML(src)
	}
	if len(src) >= hugeText {
		s.texts = append(s.texts, src)
		return template.HTML(s.nonce + "t" + strconv.Itoa(len(s.texts)-1))
	}
	s.html = append(s.html, mdHTMLBytes(src))
	return template.HTML(s.nonce + "m" + strconv.Itoa(len(s.html)-1))
}

func newImageSplicer(w io.Writer) *imageSplicer {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &imageSplicer{w: w, nonce: "grove-splice-" + hex.EncodeToString(b[:]) + "-"}
}

// view is newImageView with a stand-in for data that is plain base64 (no
// line breaks, which the URL normalizer would percent-encode).
func (s *imageSplicer) view(im image) imageView {
	v := newImageView(image{Mime: im.Mime, Valid: im.Valid, Size: im.Size, Skip: im.Skip})
	v.Note = imageNote(im.Mime, im.Data)
	if v.Src == "" || !plainBase64(im.Data) {
		return newImageView(im)
	}
	v.Src = template.URL("data:" + im.Mime + ";base64," + s.nonce + strconv.Itoa(len(s.images)))
	s.images = append(s.images, im.Data)
	return v
}

func plainBase64(b []byte) bool {
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

func (s *imageSplicer) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if rest, ok := bytes.CutPrefix(p, []byte(s.nonce+"m")); ok {
		if n, err := strconv.Atoi(string(rest)); err == nil && n >= 0 && n < len(s.html) && s.html[n] != nil {
			s.write(s.html[n])
			s.html[n] = nil
			return len(p), s.err
		}
	}
	if rest, ok := bytes.CutPrefix(p, []byte(s.nonce+"t")); ok {
		if n, err := strconv.Atoi(string(rest)); err == nil && n >= 0 && n < len(s.texts) {
			s.writePre(s.texts[n])
			s.texts[n] = ""
			return len(p), s.err
		}
	}
	if i := bytes.Index(p, []byte(s.nonce)); i >= 0 && bytes.HasPrefix(p, []byte("data:image/")) {
		if n, err := strconv.Atoi(string(p[i+len(s.nonce):])); err == nil && n >= 0 && n < len(s.images) {
			s.write(p[:i])
			data := s.images[n]
			s.images[n] = nil // written once: the line can go (SPEC §2.8)
			for len(data) > 0 {
				j := bytes.IndexByte(data, '+')
				if j < 0 {
					s.write(data)
					break
				}
				s.write(data[:j])
				s.write([]byte("&#43;"))
				data = data[j+1:]
			}
			return len(p), s.err
		}
	}
	s.write(p)
	return len(p), s.err
}

func (s *imageSplicer) write(p []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
}

// writePre writes text as mdHTML's fallback does, <pre>, the text escaped
// by template.HTMLEscape, </pre>, through a small buffer: HTMLEscape works
// byte by byte, so the text is escaped in pieces without a copy of it.
func (s *imageSplicer) writePre(text string) {
	s.write([]byte("<pre>"))
	buf := make([]byte, 0, 32<<10)
	for len(text) > 0 && s.err == nil {
		k := min(len(text), cap(buf))
		buf = append(buf[:0], text[:k]...)
		template.HTMLEscape(rawWriter{s}, buf)
		text = text[k:]
	}
	s.write([]byte("</pre>"))
}

// rawWriter writes to the splicer's output, past its stand-ins.
type rawWriter struct{ s *imageSplicer }

func (r rawWriter) Write(p []byte) (int, error) {
	r.s.write(p)
	return len(p), r.s.err
}
