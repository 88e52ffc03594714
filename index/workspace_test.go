package index

import "testing"

// The workspace rule (SPEC §3.3): a path prefix on a separator boundary.
func TestUnderWorkspace(t *testing.T) {
	for _, c := range []struct {
		ws, dir string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/a/b/c", "/a/b/", true},
		{"/a", "/", true},
		{"", "/", false},
		{"", "", true},
		{"/x", "", true},
	} {
		if got := UnderWorkspace(c.ws, c.dir); got != c.want {
			t.Errorf("UnderWorkspace(%q, %q) = %v, want %v", c.ws, c.dir, got, c.want)
		}
	}
}
