package index

import (
	"strings"
	"testing"
)

// TestFtsText_NoCopyWhenUnchanged: a text ftsText would leave as it is
// (ASCII, or valid NFKC without CJK) is stored without a copy of its own:
// a 30 MB text line was otherwise held once more in Go while SQLite bound
// it (SPEC §2.8: memory within a small multiple of the longest line). A
// text that changes still gets a copy.
func TestFtsText_NoCopyWhenUnchanged(t *testing.T) {
	tests := []struct {
		name, text, want string
		allocs           float64
	}{
		{"ASCII", strings.Repeat("plain words ", 1000), strings.Repeat("plain words ", 1000), 0},
		{"NFKC already", strings.Repeat("über café ", 1000), strings.Repeat("über café ", 1000), 0},
		{"CJK set apart", "读取 file", " 读  取  file", 1},
		{"fullwidth folded", "ＡＢＣ x", "ABC x", 2},
		{"empty", "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.text)
			if got := ftsText(b); got != tc.want {
				t.Fatalf("ftsText(%q) = %q, want %q", tc.text, got, tc.want)
			}
			n := testing.AllocsPerRun(20, func() { _ = ftsText(b) })
			if n > tc.allocs {
				t.Errorf("ftsText(%.20q…) made %v allocations, want ≤ %v", tc.text, n, tc.allocs)
			}
		})
	}
}
