package jsonl

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":"x\"y\\z\u00e9"}`, `[1,]`, `{"a":1,}`,
	`{"a" 1}`, `{a:1}`, `"\x"`, `"\u12g4"`, "\"a\x01\"", `01`, `-`, `-0`, `1.`, `1.e3`, `1e`, `1e+`, `1E-7`,
	`tru`, `true`, `nulll`, `[true false]`, `{"a":1}{"b":2}`, `{"a":1} `, "\t{}\r\n", `[[[[]]]]`, `{"":""}`,
	`"\ud800"`, `NaN`, `Infinity`, `-Infinity`, `[1e999]`, `{"a":"` + "\xff" + `"}`, `{"a"}`, `[,1]`, `{,}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	`["\ud83c\udf33","\\ud800","\udc00"]`, `"\ud83d\ud83d\ude00"`, `"\uDBFF\uDFFF\uD800"`, `{"\ud800":1}`, `"\ud83d\u0041"`,
}

func TestValidJSON_MatchesEncodingJSON(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.60q) = %v, json.Valid = %v", s, got, want)
		}
	}
}

// FuzzValidJSON holds validJSON to encoding/json.Valid on any input, and
// the lone surrogate it finds to loneSurrogate.
func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, lone := validJSONLone(b)
		if want := json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid = %v", b, got, want)
		}
		// The validator finds the first lone surrogate where the plain
		// scan over the valid text does (SPEC §2.9).
		if got {
			if want := loneSurrogate(b); lone != want {
				t.Fatalf("validJSONLone(%q) finds a lone surrogate at %d, loneSurrogate at %d", b, lone, want)
			}
		}
	})
}
