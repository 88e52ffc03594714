package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "0 entries"}, {1, "1 entry"}, {2, "2 entries"}, {-1, "-1 entries"}, {12345, "12345 entries"}}
	for _, tt := range tests {
		if got := Count(tt.n, "entry", "entries"); got != tt.want {
			t.Errorf("Count(%d, entry, entries) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Noun(1, "leaf", "leaves"); got != "leaf" {
		t.Errorf("Noun(1, leaf, leaves) = %q, want leaf", got)
	}
}
