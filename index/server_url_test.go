package index

import (
	"strings"
	"testing"
)

// What --db takes: a PostgreSQL URL in any case; a file path, even one
// holding '=' or "://" after a slash; never another scheme or a key=value
// connection string, which would be made a file; and what is printed of
// a URL never holds its password.
func TestURLs(t *testing.T) {
	for _, c := range []struct {
		s           string
		url, refuse bool
	}{
		{"postgres://u@h/db", true, false},
		{"POSTGRESQL://u@h/db", true, false},
		{"/home/u/.local/share/grove/index.db", false, false},
		{"./a=b/index.db", false, false},
		{"dir/x://y.db", false, false},
		{"mysql://u:p@h/db", false, true},
		{"host=db dbname=grove password=pw", false, true},
		{"user=me", false, true},
		{"a=b.db", false, false},
		{"postgres:/db?host=/tmp", false, true},
		{"postgres:db", false, true},
		{"file:/x.db", false, true},
		{" postgres://u@h/db", false, true},
		{"./postgres:x.db", false, false},
	} {
		if got := IsURL(c.s); got != c.url {
			t.Errorf("IsURL(%q) = %t", c.s, got)
		}
		if why := NotAFile(c.s); (why != "") != c.refuse || strings.Contains(why, "pw") {
			t.Errorf("NotAFile(%q) = %q", c.s, why)
		}
	}
	for _, s := range []string{"postgres://u:s3cret@h:5432/db?sslmode=require", "postgres://u@h/db?password=s3cret", "postgres:///db?host=/tmp&password=s3cret"} {
		for what, got := range map[string]string{"Redact": Redact(s), "WithoutPassword": WithoutPassword(s)} {
			if strings.Contains(got, "s3cret") || !strings.HasPrefix(got, "postgres://") {
				t.Errorf("%s(%q) = %q", what, s, got)
			}
		}
		if got := WithoutPassword(s); strings.Contains(got, "xxxxx") {
			t.Errorf("WithoutPassword(%q) = %q: a placeholder is pasted as the password", s, got)
		}
	}
}
