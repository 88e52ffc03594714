package index

import (
	"strings"
	"testing"
)

// A PostgreSQL URL in any case is one; a file path, even one holding '='
// or "://" after a slash, is not; and what is printed of a URL never
// holds its password.
func TestURLs(t *testing.T) {
	for _, c := range []struct {
		s   string
		url bool
	}{
		{"postgres://u@h/db", true},
		{"POSTGRESQL://u@h/db", true},
		{"/home/u/.local/share/grove/index.db", false},
		{"./a=b/index.db", false},
		{"dir/x://y.db", false},
		{"mysql://u:p@h/db", false},
		{"host=db dbname=grove password=pw", false},
		{"postgres:/db?host=/tmp", false},
		{"postgres:db", false},
		{" postgres://u@h/db", false},
		{"./postgres:x.db", false},
	} {
		if got := IsURL(c.s); got != c.url {
			t.Errorf("IsURL(%q) = %t", c.s, got)
		}
	}
	for _, s := range []string{"postgres://u:s3cret@h:5432/db?sslmode=require", "postgres://u@h/db?password=s3cret", "postgres:///db?host=/tmp&password=s3cret"} {
		if got := Redact(s); strings.Contains(got, "s3cret") || !strings.HasPrefix(got, "postgres://") {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
}
