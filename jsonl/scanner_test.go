package jsonl

import (
	"bytes"
	"strings"
	"testing"
)

func scanAll(t *testing.T, data []byte) []Line {
	t.Helper()
	sc := NewScanner(bytes.NewReader(data))
	var out []Line
	for sc.Scan() {
		l := sc.Line()
		l.Bytes = append([]byte(nil), l.Bytes...)
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return out
}

func TestScanner_Lines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Line
	}{
		{"empty", "", nil},
		{"one committed", "a\n", []Line{{Num: 1, Offset: 0, Bytes: []byte("a"), Committed: true}}},
		{"tail", "a\nbc", []Line{{Num: 1, Bytes: []byte("a"), Committed: true}, {Num: 2, Offset: 2, Bytes: []byte("bc")}}},
		{"blank lines count", "\n\nx\n", []Line{{Num: 1, Bytes: []byte{}, Committed: true}, {Num: 2, Offset: 1, Bytes: []byte{}, Committed: true}, {Num: 3, Offset: 2, Bytes: []byte("x"), Committed: true}}},
		{"CR does not end a line", "a\rb\r\n", []Line{{Num: 1, Bytes: []byte("a\rb\r"), Committed: true}}},
		{"U+2028 does not end a line", "a\u2028b\n", []Line{{Num: 1, Bytes: []byte("a\u2028b"), Committed: true}}},
		{"BOM at byte 0 skipped", "\xEF\xBB\xBFa\n", []Line{{Num: 1, Skip: 3, Bytes: []byte("a"), Committed: true}}},
		{"BOM on line 2 kept", "a\n\xEF\xBB\xBFb\n", []Line{{Num: 1, Bytes: []byte("a"), Committed: true}, {Num: 2, Offset: 2, Bytes: []byte("\xEF\xBB\xBFb"), Committed: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scanAll(t, []byte(tt.in))
			if len(got) != len(tt.want) {
				t.Fatalf("Scan(%q) = %d lines %+v, want %d", tt.in, len(got), got, len(tt.want))
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.Num != w.Num || g.Offset != w.Offset || g.Skip != w.Skip || g.Committed != w.Committed || !bytes.Equal(g.Bytes, w.Bytes) {
					t.Errorf("line %d = %+v (%q), want %+v (%q)", i, g, g.Bytes, w, w.Bytes)
				}
			}
		})
	}
}

// A line far longer than the read buffer comes back whole (SPEC §2.8).
func TestScanner_LongLine(t *testing.T) {
	long := strings.Repeat("x", 3*scanBufSize+17)
	in := "a\n" + long + "\nb"
	got := scanAll(t, []byte(in))
	if len(got) != 3 || string(got[1].Bytes) != long || got[2].Offset != int64(len(long)+3) || got[2].Committed {
		t.Fatalf("Scan(long) = %d lines, line 2 len %d, want 3 lines with line 2 of %d bytes", len(got), len(got[1].Bytes), len(long))
	}
}
