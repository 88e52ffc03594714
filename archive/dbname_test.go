package archive_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// What --db takes: a PostgreSQL URL in any case; a file path, even one
// holding '=' or "://" after a slash; never another scheme or a key=value
// connection string, which would be made a file; and what is printed of
// a URL never holds its password.
func TestNotAnIndexName(t *testing.T) {
	for _, c := range []struct {
		s            string
		team, refuse bool
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
		if got := archive.IsTeamIndex(c.s); got != c.team {
			t.Errorf("IsTeamIndex(%q) = %t", c.s, got)
		}
		if why := archive.NotAnIndexName(c.s); (why != "") != c.refuse || strings.Contains(why, "pw") {
			t.Errorf("NotAnIndexName(%q) = %q", c.s, why)
		}
	}
}

func TestPastableIndex(t *testing.T) {
	for _, s := range []string{"postgres://u:s3cret@h:5432/db?sslmode=require", "postgres://u@h/db?password=s3cret", "postgres:///db?host=/tmp&password=s3cret"} {
		if got := archive.PastableIndex(s); strings.Contains(got, "s3cret") || strings.Contains(got, "xxxxx") || !strings.HasPrefix(got, "postgres://") {
			t.Errorf("PastableIndex(%q) = %q: no password, and no placeholder pasted as one", s, got)
		}
	}
	abs, err := filepath.Abs("index.db")
	if err != nil {
		t.Fatal(err)
	}
	if got := archive.PastableIndex("index.db"); got != abs {
		t.Errorf("PastableIndex(%q) = %q, want %q", "index.db", got, abs)
	}
}
