package archive

import "testing"

// sessionName trims as JavaScript's String.trim does (pi's getSessionName):
// the BOM and Unicode spaces go, U+0085 stays.
func TestSessionName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  Login fix \u3000", "Login fix"},
		{"\ufeffname\u2028", "name"},
		{" \t\n ", ""},
		{"\u0085x\u0085", "\u0085x\u0085"},
	} {
		if got := sessionName(c.in); got != c.want {
			t.Errorf("sessionName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
