package jsonl

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
)

// Lone surrogates (SPEC §2.9): a JSON string may escape half of a UTF-16
// surrogate pair ("\ud83d" alone, or a low half alone). That is valid JSON
// grammar, and agents that cut text mid-emoji write it, so the line is kept
// as stored, with a lone_surrogate warning naming the first such string's
// field path. Readers of the text (search text, transcripts) see U+FFFD
// there, as JSON.parse and encoding/json give. The writer still refuses
// such strings in new entries (SPEC §5, roundTrip).

// surrogates warns, once per kept line, when l holds a string escaping a
// lone surrogate. The JSON check of the line found it (parseLine); a line
// parsed before (an oh-my-pi title line read late) is scanned again.
func (p *parser) surrogates(l Line) {
	col := p.lone
	if p.loneLine != l.Num {
		col = loneSurrogate(l.Bytes)
	}
	if col < 0 {
		return
	}
	field, n := surrogateFields(l.Bytes)
	p.warning(errs.New(errs.CodeLoneSurrogate, loneSurrogateMessage(field, string(l.Bytes[col:col+6]), col+1, n-1)).In(p.opts.Path).At(l.Num, l.Offset).WithField(field))
}

// loneSurrogateMarker separates the field path from the rest of a
// lone_surrogate message; LoneSurrogateField finds the path by it.
const loneSurrogateMarker = ": escaped lone UTF-16 surrogate "

// loneSurrogateMessage is the warning's text: the field path first, as in
// the field errors of the writer, then the escape, its 1-based byte column
// in the line, and how many more strings of the line hold one.
func loneSurrogateMessage(field, escape string, col, more int) string {
	msg := fmt.Sprintf("%s%s%s at byte column %d; read as U+FFFD, the line is kept as stored", field, loneSurrogateMarker, escape, col)
	switch {
	case more == 1:
		msg += " (1 more string on this line holds one)"
	case more > 1:
		msg += fmt.Sprintf(" (%d more strings on this line hold one)", more)
	}
	return msg
}

// LoneSurrogateField returns the field path a lone_surrogate message names
// (the index stores a diagnostic's message, not its field), or "" when msg
// is not such a message.
func LoneSurrogateField(msg string) string {
	if i := strings.LastIndex(msg, loneSurrogateMarker); i > 0 {
		return msg[:i]
	}
	return ""
}

// loneSurrogate returns the index in b, a valid JSON text, of the first \u
// escape of a lone UTF-16 surrogate: a high half (D800-DBFF) not followed
// by an escaped low half (DC00-DFFF), or a low half on its own. It returns
// -1 when there is none. In valid JSON every backslash starts an escape
// inside a string, so b need not be split into strings first.
func loneSurrogate(b []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return -1
		}
		i += j
		if i+1 >= len(b) {
			return -1
		}
		if b[i+1] != 'u' {
			i += 2 // \" \\ \/ \b \f \n \r \t
			continue
		}
		r, n := hex4(b[i+2:])
		if n == 0 {
			i += 2
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if lo, n := hex4(b[i+8:]); n > 0 && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 12
					continue
				}
			}
			return i
		case r >= 0xDC00 && r <= 0xDFFF:
			return i
		}
		i += 6
	}
}

// surrogateFields walks the valid JSON text b once and returns the field
// path of its first string (key or value) that escapes a lone surrogate,
// e.g. "message.content[0].text" (a key is named by its own path), and the
// number of such strings. It is called only for lines loneSurrogate found
// one in, and keeps only raw key slices until a path is wanted.
func surrogateFields(b []byte) (field string, n int) {
	type frame struct {
		obj bool
		key []byte // raw key (with quotes) of the member being read
		idx int    // index of the element being read
	}
	var stack []frame
	expectKey := false
	for i := 0; i < len(b); {
		switch b[i] {
		case '{':
			stack = append(stack, frame{obj: true})
			expectKey = true
		case '[':
			stack = append(stack, frame{})
			expectKey = false
		case '}', ']':
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			if top := &stack[len(stack)-1]; top.obj {
				expectKey = true
			} else {
				top.idx++
			}
		case '"':
			end := stringEnd(b, i)
			if end < 0 {
				return field, n
			}
			s := b[i:end]
			if expectKey {
				stack[len(stack)-1].key = s
				expectKey = false
			}
			if loneSurrogate(s) >= 0 {
				if n++; n == 1 {
					var p strings.Builder
					for _, f := range stack {
						if f.obj {
							p.WriteString("." + decodeKey(f.key))
						} else {
							p.WriteString("[" + strconv.Itoa(f.idx) + "]")
						}
					}
					field = strings.TrimPrefix(p.String(), ".")
					if field == "" {
						field = "(entry)"
					}
				}
			}
			i = end
			continue
		}
		i++
	}
	return field, n
}
