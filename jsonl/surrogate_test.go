package jsonl

import (
	"strconv"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

// A string escaping half of a UTF-16 surrogate pair keeps its line, with a
// lone_surrogate warning naming line, offset and field path (SPEC §2.9); a
// whole pair, an escaped backslash before "ud83d" and other escapes do not.
func TestRead_LoneSurrogate(t *testing.T) {
	user := func(content string) string {
		return `{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":` + content + `}}`
	}
	tests := []struct {
		name  string
		line  string
		field string // "" = no warning
		esc   string // the escape the message names
		more  int    // further strings of the line that hold one
	}{
		{"high half at the end", user(`[{"type":"text","text":"cut \ud83d"}]`), "message.content[0].text", `\ud83d`, 0},
		{"low half alone", user(`[{"type":"text","text":"a"},{"type":"text","text":"\uDE00 b"}]`), "message.content[1].text", `\uDE00`, 0},
		{"high then high then pair", user(`"\ud83d\ud83d\ude00"`), "message.content", `\ud83d`, 0},
		{"high then other escape", user(`"\ud83d\u0041"`), "message.content", `\ud83d`, 0},
		{"low then high", user(`"\udc00\ud800"`), "message.content", `\udc00`, 0},
		{"in a key", `{"type":"custom","id":"c","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","customType":"x","data":{"k\udbff":1}}`, "data.k\uFFFD", `\udbff`, 0},
		{"in a name, twice", `{"type":"session_info","id":"n","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","name":"\ud83d","x":["ok",{"y":"\udfff"}]}`, "name", `\ud83d`, 1},
		{"nested arrays", user(`[{"type":"text","text":"ok"}],"z":[[1,[],{}],["a","\ud800"]]`), "message.z[1][1]", `\ud800`, 0},
		{"a whole pair", user(`"tree \ud83c\udf33 and \uD83D\uDE00"`), "", "", 0},
		{"escaped backslash", user(`"literal \\ud83d and \\\\ud800"`), "", "", 0},
		{"escaped backslash then lone", user(`"\\\ud83d"`), "message.content", `\ud83d`, 0},
		{"other escapes", user(`"\n\t\"\/\u00e9\uffff"`), "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := piHeader3 + "\n" + tc.line + "\n"
			for _, mode := range []Mode{Salvage, Strict} {
				entries, res, err := read(t, in, mode)
				if err != nil || len(entries) != 1 || len(res.Errors) != 0 || res.State() != StateOK {
					t.Fatalf("Read(mode %d) = %d entries, errors %v, state %s, %v; want the line kept, state ok", mode, len(entries), res.Errors, res.State(), err)
				}
				if string(entries[0].Raw) != tc.line {
					t.Fatalf("Raw = %s, want the line as stored", entries[0].Raw)
				}
				if tc.field == "" {
					if len(res.Warnings) != 0 {
						t.Fatalf("warnings = %v, want none", res.Warnings)
					}
					continue
				}
				if len(res.Warnings) != 1 {
					t.Fatalf("warnings = %v, want one lone_surrogate", res.Warnings)
				}
				w := res.Warnings[0]
				col := strings.Index(tc.line, tc.esc) + 1
				if w.Code != errs.CodeLoneSurrogate || w.Line != 2 || w.Offset != int64(len(piHeader3)+1) || w.Field != tc.field || w.Path != "t.jsonl" {
					t.Fatalf("warning = %+v, want lone_surrogate line 2 offset %d field %q", w, len(piHeader3)+1, tc.field)
				}
				if !strings.Contains(w.Message, tc.esc+" at byte column "+strconv.Itoa(col)) || strings.Contains(w.Message, "more string") != (tc.more > 0) {
					t.Fatalf("message = %q, want %s at byte column %d (%d more)", w.Message, tc.esc, col, tc.more)
				}
				if got := LoneSurrogateField(w.Message); got != tc.field {
					t.Fatalf("LoneSurrogateField(%q) = %q, want %q", w.Message, got, tc.field)
				}
			}
		})
	}
}

// The header and plain entries are checked too, a bad line is not (its
// bad_line says enough), and a warning is given once per line.
func TestRead_LoneSurrogateWhere(t *testing.T) {
	header := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w\ud83d"}`
	_, res, _ := read(t, header+"\n", Salvage)
	if len(res.Warnings) != 1 || res.Warnings[0].Field != "cwd" || res.Warnings[0].Line != 1 {
		t.Fatalf("header warnings = %v, want lone_surrogate at cwd on line 1", res.Warnings)
	}
	plain := `{"id":"p","parentId":null,"timestamp":1,"type":"metadata","key":"k","value":"\udc00"}`
	bad := `{"id":"q","parentId":null,"timestamp":"x","type":"metadata","key":"k","value":"\udc00"}`
	_, res, _ = read(t, plain+"\n"+bad+"\n", Salvage)
	if len(res.Warnings) != 1 || res.Warnings[0].Field != "value" || res.Warnings[0].Line != 1 || len(res.Errors) != 1 {
		t.Fatalf("plain: warnings %v errors %v, want one warning (line 1, value) and the bad line 2", res.Warnings, res.Errors)
	}
}
