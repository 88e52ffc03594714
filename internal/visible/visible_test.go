package visible

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct{ in, keep, want string }{
		{"plain text, 中文 ✓", "", "plain text, 中文 ✓"},
		{"\x1b[2Jclear", "", `\x1b[2Jclear`},
		{"a\nb\tc\rd", "", `a\nb\tc\rd`},
		{"a\nb\tc\rd", "\n\t", "a\nb\tc\\rd"},
		{"bell\a del\x7f", "", `bell\x07 del\x7f`},
		{"c1 \u009b31m", "", `c1 \x9b31m`},
		{"bidi \u202eevil\u2066", "", `bidi \u202eevil\u2066`},
		{"\u202a\u202b\u202c\u202d \u2067\u2068\u2069 \u2028\u2029", "", `\u202a\u202b\u202c\u202d \u2067\u2068\u2069 \u2028\u2029`},
		{"marks \u200e\u200f stay", "", "marks \u200e\u200f stay"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in, tt.keep); got != tt.want {
			t.Errorf("Escape(%q, %q) = %q, want %q", tt.in, tt.keep, got, tt.want)
		}
	}
}
