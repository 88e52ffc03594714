package jsonl

// validJSON reports whether b is exactly one JSON value (RFC 8259) with
// optional surrounding whitespace: the same answer as encoding/json.Valid,
// including its limit of 10,000 nested arrays and objects, but several
// times faster, because it is a plain loop instead of a state machine
// called per byte. It does not check UTF-8 (neither does json.Valid; the
// reader checks it first). FuzzValidJSON holds it to json.Valid.
func validJSON(b []byte) bool {
	ok, _ := validJSONLone(b)
	return ok
}

// validJSONLone is validJSON that also returns the index in b of the first
// \u escape of a lone UTF-16 surrogate (SPEC §2.9), or -1: a high half
// (D800-DBFF) not followed by an escaped low half (DC00-DFFF), or a low
// half on its own. It costs one comparison per \u escape.
func validJSONLone(b []byte) (bool, int) {
	v := validator{b: b, lone: -1}
	i := skipSpace(b, 0)
	i = v.value(i)
	if i < 0 {
		return false, -1
	}
	return skipSpace(b, i) == len(b), v.lone
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

type validator struct {
	b     []byte
	stack []byte // open containers: '{' or '['
	lone  int    // the first escaped lone surrogate, or -1
	low   int    // the escape of the low half of the last pair seen
}

// strSafe marks the bytes that may appear in a string without escaping.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// value validates the value starting at b[i] and everything nested in it,
// iteratively. It returns the index after the value, or -1.
func (v *validator) value(i int) int {
	b := v.b
	base := len(v.stack)
	for {
		// Expect a value at i.
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '{':
			if len(v.stack) >= maxDepth {
				return -1
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			v.stack = append(v.stack, '{')
			if i = v.key(i); i < 0 {
				return -1
			}
			continue
		case c == '[':
			if len(v.stack) >= maxDepth {
				return -1
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == ']' {
				i++
				break
			}
			v.stack = append(v.stack, '[')
			continue
		case c == '"':
			if i = v.str(i); i < 0 {
				return -1
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i = v.num(i); i < 0 {
				return -1
			}
		case c == 't':
			if i = v.lit(i, "true"); i < 0 {
				return -1
			}
		case c == 'f':
			if i = v.lit(i, "false"); i < 0 {
				return -1
			}
		case c == 'n':
			if i = v.lit(i, "null"); i < 0 {
				return -1
			}
		default:
			return -1
		}
		// A value ended at i: close containers or move to the next member.
		for {
			if len(v.stack) == base {
				return i
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			top := v.stack[len(v.stack)-1]
			if b[i] == ',' {
				i = skipSpace(b, i+1)
				if top == '{' {
					if i = v.key(i); i < 0 {
						return -1
					}
				}
				break
			}
			if (top == '{' && b[i] == '}') || (top == '[' && b[i] == ']') {
				v.stack = v.stack[:len(v.stack)-1]
				i++
				continue
			}
			return -1
		}
	}
}

// key validates `"name" :` at b[i] and returns the index of the value.
func (v *validator) key(i int) int {
	if i >= len(v.b) || v.b[i] != '"' {
		return -1
	}
	if i = v.str(i); i < 0 {
		return -1
	}
	i = skipSpace(v.b, i)
	if i >= len(v.b) || v.b[i] != ':' {
		return -1
	}
	return skipSpace(v.b, i+1)
}

// str validates the string at b[i] == '"' and returns the index after it.
func (v *validator) str(i int) int {
	b := v.b
	for i++; i < len(b); {
		c := b[i]
		if strSafe[c] {
			i++
			continue
		}
		switch c {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				if b[i+2]|0x20 == 'd' && b[i+3] >= '8' && v.lone < 0 { // U+D800-DFFF
					v.surrogate(i)
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

// surrogate looks at the escape at b[i] of a UTF-16 surrogate half, whose
// hex digits are valid: a high half followed by an escaped low half is a
// pair (and that low half no lone one); any other is v.lone.
func (v *validator) surrogate(i int) {
	b := v.b
	if i == v.low && v.low > 0 {
		return
	}
	if h := b[i+3] | 0x20; h == '8' || h == '9' || h == 'a' || h == 'b' {
		if i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
			if lo, n := hex4(b[i+8 : i+12]); n > 0 && lo >= 0xDC00 && lo <= 0xDFFF {
				v.low = i + 6
				return
			}
		}
	}
	v.lone = i
}

// num validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at b[i].
func (v *validator) num(i int) int {
	b := v.b
	digits := func(i int) int {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return -1
		}
		return i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(i); i < 0 {
			return -1
		}
	}
	return i
}

func (v *validator) lit(i int, word string) int {
	if len(v.b)-i < len(word) || string(v.b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}
