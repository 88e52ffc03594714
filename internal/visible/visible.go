// Package visible is grove's one rule for the characters it never shows as
// they are, in a terminal (the CLI) or in a browser (grove serve): control
// characters, which can clear a screen or hide text, and the bidirectional
// overrides and isolates, which reorder the text around them (an U+202E in
// a file name or a message makes "txt.exe" read "exe.txt"). Each is shown
// as a visible escape instead: \n, \t, \r, \x1b, \u202e.
//
// # Caveats
//
// U+200E and U+200F (the left-to-right and right-to-left marks) only mark
// a direction and are shown as they are, as terminals show them.
package visible

import "strings"

// Control reports whether r is shown escaped: a C0 control character
// (U+0000–U+001F), DEL, a C1 control character (U+0080–U+009F), a
// bidirectional override or embedding (U+202A–U+202E) or isolate
// (U+2066–U+2069), or the line and paragraph separators U+2028 and U+2029.
func Control(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x2028 || r == 0x2029
}

// Escape returns s with every Control character but those in keep written
// as its escape (AppendEscape); s itself when it has none.
func Escape(s, keep string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return Control(r) && !strings.ContainsRune(keep, r) }) {
		return s
	}
	var b []byte
	for _, r := range s {
		if !Control(r) || strings.ContainsRune(keep, r) {
			b = append(b, string(r)...)
			continue
		}
		b = AppendEscape(b, r)
	}
	return string(b)
}

// AppendEscape appends the escape of r to dst: \n, \t or \r for those,
// \xHH for another character below U+0100, else \uHHHH (lower-case hex
// digits).
func AppendEscape(dst []byte, r rune) []byte {
	const digits = "0123456789abcdef"
	switch {
	case r == '\n':
		return append(dst, `\n`...)
	case r == '\t':
		return append(dst, `\t`...)
	case r == '\r':
		return append(dst, `\r`...)
	case r < 0x100:
		return append(dst, '\\', 'x', digits[r>>4], digits[r&15])
	}
	return append(dst, '\\', 'u', digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15])
}
