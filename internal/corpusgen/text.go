package corpusgen

import (
	"math"
	"strconv"
)

// zipfBits is the resolution of a Zipf table: a draw takes this many random
// bits, so the rarest word of a vocabulary still gets several slots.
const zipfBits = 16

// zipf maps zipfBits random bits to a vocabulary rank so that rank k (from
// 1) is drawn with probability proportional to 1/(k+q)^s (Zipf–Mandelbrot;
// q = 0 is plain Zipf). A q above 0 flattens the head, as for content
// words, whose most frequent ones are far less common than "the".
type zipf []uint16

func newZipf(n int, s, q float64) zipf {
	cdf := make([]float64, n)
	sum := 0.0
	for k := range n {
		sum += 1 / math.Pow(float64(k+1)+q, s)
		cdf[k] = sum
	}
	t := make(zipf, 1<<zipfBits)
	k := 0
	for j := range t {
		u := (float64(j) + 0.5) / float64(len(t)) * sum
		for k < n-1 && cdf[k] < u {
			k++
		}
		t[j] = uint16(k)
	}
	return t
}

func (z zipf) pick(r *rng) int { return int(z[r.Uint64()>>(64-zipfBits)]) }

// The exponents are those of natural-language text (s close to 1).
var (
	enZipf = newZipf(len(enWords), 1.05, 15)
	fnZipf = newZipf(len(enFunction), 1.0, 0)
	zhZipf = newZipf(len(zhWords), 1.0, 2)
)

// text appends generated raw text (not yet JSON-escaped) to byte slices.
// Sizes are in bytes.
type text struct {
	r  *rng
	ws *workspace
}

// word appends a content word of English prose.
func (t text) word(b []byte) []byte { return append(b, enWords[enZipf.pick(t.r)]...) }

// ident appends an identifier such as parseConfig (ParseConfig when
// exported).
func (t text) ident(b []byte, exported bool) []byte {
	r := t.r
	start := len(b)
	if r.Intn(4) == 0 {
		b = append(b, identNouns[r.Intn(len(identNouns))]...)
	} else {
		b = append(b, identVerbs[r.Intn(len(identVerbs))]...)
		n := identNouns[r.Intn(len(identNouns))]
		b = append(b, n[0]-'a'+'A')
		b = append(b, n[1:]...)
	}
	if exported {
		b[start] = upper(b[start])
	}
	return b
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// file appends one of the workspace's file paths.
func (t text) file(b []byte) []byte { return append(b, t.ws.files[t.r.Intn(len(t.ws.files))]...) }

// sentence appends one English sentence of 5 to 20 words, content words
// alternating with function words (never two function words in a row,
// nor one at the end), now and then with an identifier in backticks or a
// file path.
func (t text) sentence(b []byte) []byte {
	r := t.r
	n := r.Range(5, 20)
	start := len(b)
	fn := r.Intn(3) == 0 // the previous word was a function word
	last := -1           // the previous content word
	for i := range n {
		if i > 0 {
			if r.Intn(12) == 0 && !fn {
				b = append(b, ',')
			}
			b = append(b, ' ')
		}
		if !fn && i < n-1 && r.Intn(10) < 4 || i == 0 && fn {
			b = append(b, enFunction[fnZipf.pick(r)]...)
			fn = true
			continue
		}
		fn = false
		switch k := r.Intn(25); {
		case k == 0 && i > 0:
			b = append(b, '`')
			b = t.ident(b, r.Intn(3) == 0)
			b = append(b, '`')
		case k == 1 && i > 0:
			b = t.file(b)
		default:
			w := enZipf.pick(r)
			if w == last { // "file file" is rare in real text: draw again
				w = enZipf.pick(r)
			}
			b, last = append(b, enWords[w]...), w
		}
	}
	b[start] = upper(b[start])
	if r.Intn(8) == 0 {
		return append(b, '?')
	}
	return append(b, '.')
}

// prose appends English sentences until about n bytes were added, in
// paragraphs, sometimes as a bulleted list.
func (t text) prose(b []byte, n int) []byte {
	end := len(b) + n
	r := t.r
	for i := 0; len(b) < end; i++ {
		if i > 0 {
			if len(b)+40 > end { // close to n: end the text mid-sentence instead of overshooting
				b = append(b, ' ')
				for len(b) < end {
					b = append(t.word(b), ' ')
				}
				b[len(b)-1] = '.'
				break
			}
			switch k := r.Intn(10); {
			case k < 2:
				b = append(b, "\n\n"...)
			case k < 3:
				b = append(b, "\n- "...)
			default:
				b = append(b, ' ')
			}
		}
		b = t.sentence(b)
	}
	return b
}

// zhProse appends Chinese text until about n bytes were added: generated
// runs of zhWords with identifiers in backticks, and whole zhSentences.
func (t text) zhProse(b []byte, n int) []byte {
	end := len(b) + n
	r := t.r
	for len(b) < end {
		if r.Intn(3) == 0 {
			b = append(b, zhSentences[r.Intn(len(zhSentences))]...)
			continue
		}
		words := r.Range(4, 14)
		for i := range words {
			switch k := r.Intn(30); {
			case k == 0 && i > 0:
				b = append(b, '`')
				b = t.ident(b, false)
				b = append(b, '`')
			case k == 1 && i > 0:
				b = append(b, "，"...)
			default:
				b = append(b, zhWords[zhZipf.pick(r)]...)
			}
		}
		if r.Intn(6) == 0 {
			b = append(b, "？"...)
		} else {
			b = append(b, "。"...)
		}
		if r.Intn(8) == 0 {
			b = append(b, '\n')
		}
	}
	return b
}

// expand appends tmpl with its placeholders filled: $I an exported
// identifier, $i a lower-case one, $w a word, $n a number, $f a file, $d a
// directory, $s a short phrase.
func (t text) expand(b []byte, tmpl string) []byte {
	r := t.r
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c != '$' || i+1 == len(tmpl) {
			b = append(b, c)
			continue
		}
		i++
		switch tmpl[i] {
		case 'I':
			b = t.ident(b, true)
		case 'i':
			b = t.ident(b, false)
		case 'w':
			b = t.word(b)
		case 'n':
			b = strconv.AppendInt(b, int64(r.Range(1, 400)), 10)
		case 'f':
			b = t.file(b)
		case 'd':
			b = append(b, pathDirs[r.Intn(len(pathDirs))]...)
		case 's':
			for j := range r.Range(3, 8) {
				if j > 0 {
					b = append(b, ' ')
				}
				b = t.word(b)
			}
		default:
			b = append(b, '$', tmpl[i])
		}
	}
	return b
}

// code appends source lines of the workspace's language until about n bytes
// were added.
func (t text) code(b []byte, n int) []byte {
	lines := codeTS
	switch t.ws.lang {
	case "go":
		lines = codeGo
	case "py":
		lines = codePy
	}
	end := len(b) + n
	for len(b) < end {
		b = t.expand(b, lines[t.r.Intn(len(lines))])
		b = append(b, '\n')
	}
	return b
}

// doc appends a markdown document of about n bytes: headings, prose, code
// fences and tables.
func (t text) doc(b []byte, n int) []byte {
	end := len(b) + n
	r := t.r
	for len(b) < end {
		b = t.expand(b, docHeadings[r.Intn(len(docHeadings))])
		b = append(b, "\n\n"...)
		if r.Intn(4) == 0 {
			b = append(b, "```\n"...)
			b = t.code(b, r.Range(80, 400))
			b = append(b, "```\n\n"...)
		} else {
			b = t.prose(b, r.Range(60, 500))
			b = append(b, "\n\n"...)
		}
	}
	return b
}

// bashOutput appends about n bytes of what a command prints: grep hits,
// listings, test runs, compiler errors, now and then with ANSI colours.
func (t text) bashOutput(b []byte, n int) []byte {
	end := len(b) + n
	r := t.r
	style := r.Intn(5)
	for len(b) < end {
		switch style {
		case 0: // grep hits
			b = t.file(b)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(r.Range(1, 900)), 10)
			b = append(b, ':')
			b = t.expand(b, codeTS[r.Intn(len(codeTS))])
		case 1: // a listing
			b = append(b, "-rw-r--r--  1 dev  staff  "...)
			b = strconv.AppendInt(b, int64(r.Range(80, 90000)), 10)
			b = append(b, " Jan  5 09:"...)
			b = appendDigits(b, r.Intn(60), 2)
			b = append(b, ' ')
			b = t.file(b)
		case 2: // a test run
			if r.Intn(6) == 0 {
				b = append(b, "\x1b[31m"...)
				b = t.expand(b, errorLines[r.Intn(len(errorLines))])
				b = append(b, "\x1b[0m"...)
			} else {
				b = append(b, "ok  \tgithub.com/acme/"...)
				b = t.ident(b, false)
				b = append(b, "\t0."...)
				b = appendDigits(b, r.Intn(1000), 3)
				b = append(b, 's')
			}
		case 3: // compiler errors
			b = t.expand(b, errorLines[r.Intn(len(errorLines))])
		default: // a file's lines
			b = t.code(b, 1)
			b = b[:len(b)-1]
		}
		b = append(b, '\n')
	}
	return b
}
