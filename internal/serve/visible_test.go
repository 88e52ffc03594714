package serve

import (
	"bytes"
	"testing"
)

// The page writer escapes what the command line escapes in a page's text,
// leaves tags and attribute values alone, and gives the same bytes however
// the page is cut into writes (a character split between two).
func TestVisibleHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<p>plain 中文</p>\n", "<p>plain 中文</p>\n"},
		{"<p>a\u202eb\u2066c\u2069 \x1b[2J\u0085\u2028</p>", `<p>a\u202eb\u2066c\u2069 \x1b[2J\x85\u2028</p>`},
		{"<pre>one\n\ttwo\r\n</pre>", "<pre>one\n\ttwo\r\n</pre>"},
		{"<input value=\"q\u202e\">\u202e", `<input value="q` + "\u202e" + `">\u202e`},
		{"\u200e\u200f marks", "\u200e\u200f marks"},
		{"cut at the end \xe2\x80", "cut at the end \xe2\x80"},
	}
	for _, tt := range tests {
		for cut := 0; cut <= len(tt.in); cut++ {
			var b bytes.Buffer
			v := newVisibleHTML(&b)
			if n, err := v.Write([]byte(tt.in[:cut])); n != cut || err != nil {
				t.Fatalf("Write = %d, %v; want %d, nil", n, err, cut)
			}
			v.Write([]byte(tt.in[cut:]))
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("%q written in two at %d = %q, want %q", tt.in, cut, b.String(), tt.want)
			}
		}
	}
}
