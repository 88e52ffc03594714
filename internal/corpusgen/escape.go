package corpusgen

import (
	"strconv"
	"time"
)

// needsEscape marks the bytes a JSON string must escape: control
// characters, the quote and the backslash. Everything else, UTF-8 included,
// is written as it is, as JavaScript's JSON.stringify (and so pi) does.
var needsEscape = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// appendString appends s as a JSON string. s must be valid UTF-8; every
// text source of this package is.
func appendString[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !needsEscape[c] {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendKey appends ,"key": (the comma only when b does not end an opening
// brace).
func appendKey(b []byte, key string) []byte {
	if n := len(b); n > 0 && b[n-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendStr appends ,"key":"value" with value escaped.
func appendStr[S ~string | ~[]byte](b []byte, key string, value S) []byte {
	return appendString(appendKey(b, key), value)
}

// appendInt appends ,"key":n.
func appendInt(b []byte, key string, n int64) []byte {
	return strconv.AppendInt(appendKey(b, key), n, 10)
}

// appendBool appends ,"key":true or false.
func appendBool(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(b, key), v)
}

// appendISO appends the UTC time of ms (Unix milliseconds) as pi writes it,
// JavaScript's toISOString: 2026-01-05T09:00:00.000Z, without quotes.
func appendISO(b []byte, ms int64) []byte {
	t := time.UnixMilli(ms).UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(mo), 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, mi, 2)
	b = append(b, ':')
	b = appendDigits(b, s, 2)
	b = append(b, '.')
	b = appendDigits(b, int(ms%1000+1000)%1000, 3)
	return append(b, 'Z')
}

// appendDigits appends v zero-padded to width decimal digits.
func appendDigits(b []byte, v, width int) []byte {
	var tmp [8]byte
	for i := width - 1; i >= 0; i-- {
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, tmp[:width]...)
}

// fileTime is pi's session file name prefix for the time ms: the ISO time
// with ':' and '.' replaced by '-' (2026-01-05T09-00-00-000Z).
func fileTime(ms int64) string {
	b := appendISO(nil, ms)
	for i, c := range b {
		if c == ':' || c == '.' {
			b[i] = '-'
		}
	}
	return string(b)
}
