package jsonl

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendSearchText appends the search text of one committed entry line to
// dst and returns the extended slice (SPEC §7). raw is the line's JSON
// object exactly as in the file, of either dialect; pieces are separated by
// '\n'. What is taken:
//
//   - message entries, by message.role: user and custom (hookMessage) content
//     (a string or text blocks); assistant text, thinking, tool call names
//     and the string values inside tool call arguments; toolResult text
//     blocks; bashExecution command and output; branchSummary and
//     compactionSummary summary;
//   - compaction and branch_summary summary; custom_message content; custom
//     entries' string values inside data; session_info name; label label;
//   - plain metadata values that are strings.
//
// Image blocks are skipped whole, and so is any string that looks like
// base64 data (see isBase64ish): such data is never indexed. A line that is
// not a JSON object yields nothing; AppendSearchText never fails or panics.
func AppendSearchText(dst, raw []byte) []byte {
	var typ, message, summary, content, name, label, value, data []byte
	walkObject(raw, func(key, v []byte) bool {
		switch string(key) {
		case `"type"`:
			typ = v
		case `"message"`:
			message = v
		case `"summary"`:
			summary = v
		case `"content"`:
			content = v
		case `"name"`:
			name = v
		case `"label"`:
			label = v
		case `"value"`:
			value = v
		case `"data"`:
			data = v
		}
		return true
	})
	switch string(typ) {
	case `"message"`:
		return appendMessageText(dst, message)
	case `"compaction"`, `"branch_summary"`:
		return appendString(dst, summary)
	case `"custom_message"`:
		return appendContent(dst, content)
	case `"custom"`:
		return appendStrings(dst, data, 0)
	case `"session_info"`:
		return appendString(dst, name)
	case `"label"`:
		return appendString(dst, label)
	case `"metadata"`:
		return appendString(dst, value)
	}
	return dst
}

// appendMessageText appends the text of an agent message object by role.
func appendMessageText(dst, msg []byte) []byte {
	var role, content, command, output, summary []byte
	walkObject(msg, func(key, value []byte) bool {
		switch string(key) {
		case `"role"`:
			role = value
		case `"content"`:
			content = value
		case `"command"`:
			command = value
		case `"output"`:
			output = value
		case `"summary"`:
			summary = value
		}
		return true
	})
	switch string(role) {
	case `"bashExecution"`:
		dst = appendString(dst, command)
		return appendString(dst, output)
	case `"branchSummary"`, `"compactionSummary"`:
		return appendString(dst, summary)
	}
	return appendContent(dst, content)
}

// appendContent appends a message content: a string, or an array of blocks
// of which text, thinking and toolCall give text and image gives none.
func appendContent(dst, content []byte) []byte {
	if len(content) > 0 && content[0] == '"' {
		return appendString(dst, content)
	}
	walkArray(content, func(block []byte) {
		var typ, text, thinking, name, args []byte
		walkObject(block, func(key, value []byte) bool {
			switch string(key) {
			case `"type"`:
				typ = value
			case `"text"`:
				text = value
			case `"thinking"`:
				thinking = value
			case `"name"`:
				name = value
			case `"arguments"`:
				args = value
			}
			return true
		})
		switch string(typ) {
		case `"text"`:
			dst = appendString(dst, text)
		case `"thinking"`:
			dst = appendString(dst, thinking)
		case `"toolCall"`:
			dst = appendString(dst, name)
			dst = appendStrings(dst, args, 0)
		}
	})
	return dst
}

// appendStrings appends every string value inside the JSON value v (object
// member values and array elements, recursively; not keys), to a nesting
// depth of 64.
func appendStrings(dst, v []byte, depth int) []byte {
	if len(v) == 0 || depth > 64 {
		return dst
	}
	switch v[0] {
	case '"':
		return appendString(dst, v)
	case '{':
		walkObject(v, func(_, value []byte) bool {
			dst = appendStrings(dst, value, depth+1)
			return true
		})
	case '[':
		walkArray(v, func(elem []byte) { dst = appendStrings(dst, elem, depth+1) })
	}
	return dst
}

// appendString appends the decoded JSON string raw (quotes included) and a
// '\n', unless raw is not a string, is empty, or looks like base64 data.
func appendString(dst, raw []byte) []byte {
	if len(raw) < 3 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst
	}
	// An unescaped string is its own bytes, so base64 is recognised before
	// it is copied; text is unquoted into room made once, not by doubling
	// (SPEC §2.8: a 50 MB image costs nothing, a 25 MB text its size).
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 && isBase64ish(body) {
		return dst
	}
	dst = slices.Grow(dst, len(raw))
	start := len(dst)
	dst = unquote(dst, raw[1:len(raw)-1])
	if isBase64ish(dst[start:]) {
		return dst[:start]
	}
	if bytes.IndexByte(dst[start:], 0x1b) >= 0 {
		dst = append(dst[:start], stripANSI(dst[start:])...)
	}
	if len(dst)-start >= minBase64Run {
		dst = append(dst[:start], cutBase64Runs(dst[start:])...)
	}
	return append(dst, '\n')
}

// minBase64Run is the shortest run of base64 characters inside a text that
// is taken for data and cut out.
const minBase64Run = 256

// cutBase64Runs returns s without the runs of at least minBase64Run bytes
// from the base64 alphabets that hold upper case, lower case and digits
// (data pasted inside a message: an image, a key, a blob), each replaced by
// a space; s is changed in place. Long words, paths and hex hashes lack one
// of the three classes or the length.
func cutBase64Runs(s []byte) []byte {
	out := s[:0]
	for i := 0; i < len(s); {
		j, classes := i, 0
		for j < len(s) && isBase64Byte(s[j]) {
			switch c := s[j]; {
			case c >= 'A' && c <= 'Z':
				classes |= 1
			case c >= 'a' && c <= 'z':
				classes |= 2
			case c >= '0' && c <= '9':
				classes |= 4
			}
			j++
		}
		if j-i >= minBase64Run && classes == 7 {
			out = append(out, ' ')
			i = j
			continue
		}
		if j == i {
			j++
		}
		out = append(out, s[i:j]...)
		i = j
	}
	return out
}

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

// StripEscapes returns s without the terminal escape sequences (CSI, OSC,
// charset designations, two-byte escapes) that search text leaves out (see
// stripANSI), so that a query is read as indexed text is
// (`grove search $'\e[31merror'` finds "error", SPEC §7) and a first
// message shows no escapes.
func StripEscapes(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return string(stripANSI([]byte(s)))
}

// stripANSI returns s without terminal escape sequences, which tool output
// is full of ("\x1b[31merror" must be the word "error", not "31merror"):
// CSI sequences (ESC [ parameters intermediates final), OSC sequences
// (ESC ] ... BEL or ESC \\), charset designations (ESC ( B) and two-byte
// escapes. They are removed without a trace, so that a word coloured in
// part (grep --color: "pre\x1b[1mfix") stays one word. s is changed in
// place.
func stripANSI(s []byte) []byte {
	out := s[:0]
	for i := 0; i < len(s); {
		if s[i] != 0x1b || i+1 >= len(s) {
			out = append(out, s[i])
			i++
			continue
		}
		j := i + 2
		switch s[i+1] {
		case '[':
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f { // parameters and intermediates
				j++
			}
			if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e { // the final byte
				j++
			}
		case ']':
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x07 {
				j++
			} else if j < len(s) {
				j += 2
			}
		case '(', ')', '*', '+':
			if j < len(s) && s[j] < 0x80 {
				j++ // ESC ( B: a charset designation, one more byte
			}
		default:
			if s[i+1] >= 0x80 {
				j = i + 1 // ESC before a multibyte character: only the ESC goes, the character stays whole
			}
		}
		i = min(j, len(s))
	}
	return out
}

// isBase64ish reports whether s is base64 data rather than text: a data:
// URI with ";base64,", or at least 256 bytes drawn only from the base64
// alphabets (standard and URL-safe) with at most two '=' of padding. Text
// of that length nearly always holds a space, a newline or punctuation.
func isBase64ish(s []byte) bool {
	if bytes.HasPrefix(s, []byte("data:")) {
		if i := bytes.Index(s[:min(len(s), 128)], []byte(";base64,")); i >= 0 {
			return true
		}
	}
	if len(s) < 256 {
		return false
	}
	s = bytes.TrimRight(s, "=")
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// unquote appends the decoded contents of a JSON string (without its
// quotes) to dst. Invalid escapes are copied as they are; a lone surrogate
// becomes U+FFFD. The input comes from lines that already passed
// validation, so those cases only matter for robustness.
func unquote(dst, s []byte) []byte {
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return append(dst, s...)
		}
		switch s[1] {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case '"', '\\', '/':
			dst = append(dst, s[1])
		case 'u':
			r, n := hex4(s[2:])
			if n == 0 {
				dst = append(dst, s[:2]...)
				s = s[2:]
				continue
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					if r2, n2 := hex4(s[2:]); n2 > 0 {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							s = s[6:]
							dst = utf8.AppendRune(dst, d)
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			dst = append(dst, s[:2]...)
		}
		s = s[2:]
	}
	return dst
}

// hex4 decodes four hex digits at the start of s; n is 0 when there are
// not four.
func hex4(s []byte) (r rune, n int) {
	if len(s) < 4 {
		return 0, 0
	}
	for _, c := range s[:4] {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, 0
		}
		r = r<<4 | rune(v)
	}
	return r, 4
}
