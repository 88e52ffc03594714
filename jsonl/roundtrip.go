package jsonl

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// roundTrip checks that the valid, compact JSON value b survives a JSON
// reader such as pi's (JSON.parse, then JSON.stringify) unchanged (SPEC §5):
// no key twice in one object, no number that overflows to ±Inf or that a
// float64 cannot hold (integers beyond ±(2^53−1), or digits a float64
// drops), no escaped lone UTF-16 surrogate. It returns the field path and
// the reason of the first problem, or "" and "".
//
// The path is built only when a problem is found, from a stack of
// segments, so deeply nested input costs time linear in its size.
func roundTrip(b []byte) (field, why string) {
	var stack []string
	var walk func(v []byte) bool
	fail := func(msg string) bool {
		why = msg
		field = strings.Join(stack, "")
		field = strings.TrimPrefix(field, ".")
		if field == "" {
			field = "(entry)"
		}
		return false
	}
	walk = func(v []byte) bool {
		switch jsonKind(v) {
		case 'o':
			seen := map[string]bool{}
			ok := true
			walkObject(v, func(key, value []byte) bool {
				k := decodeKey(key)
				stack = append(stack, "."+k)
				switch {
				case seen[k]:
					ok = fail(fmt.Sprintf("key %q appears twice in one object; readers keep only one of them", k))
				case !stringSurvives(key):
					ok = fail("the key holds an escaped lone UTF-16 surrogate, which JSON readers replace")
				default:
					seen[k] = true
					ok = walk(value)
				}
				if ok {
					stack = stack[:len(stack)-1]
				}
				return ok
			})
			return ok
		case 'a':
			ok, i := true, 0
			walkArray(v, func(e []byte) {
				if !ok {
					return
				}
				stack = append(stack, fmt.Sprintf("[%d]", i))
				if ok = walk(e); ok {
					stack = stack[:len(stack)-1]
				}
				i++
			})
			return ok
		case 's':
			if !stringSurvives(v) {
				return fail("an escaped lone UTF-16 surrogate, which JSON readers replace")
			}
		case 'n':
			if msg := numberSurvives(v); msg != "" {
				return fail(msg)
			}
		}
		return true
	}
	walk(b)
	return field, why
}

// numberSurvives explains why a JSON number literal would change when read
// into a float64 and written out again, or returns "". 1e20 and 0.1
// survive (0.1 reads as the float64 nearest to it, which is written out as
// 0.1 again); 9007199254740993 and 9.007199254740993e15 do not.
func numberSurvives(lit []byte) string {
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || math.IsInf(f, 0) {
		return fmt.Sprintf("the number %s overflows a float64 (it would read as ±Infinity)", lit)
	}
	exact, ok := new(big.Rat).SetString(string(lit))
	if !ok {
		return fmt.Sprintf("the number %s cannot be read", lit)
	}
	// An integer literal (no fraction, no exponent) must be within
	// ±(2^53−1) (SPEC §5); any other literal must be exactly what a float64
	// reads, so that writing the float64 out again gives the same number.
	if !strings.ContainsAny(string(lit), ".eE") && new(big.Int).Abs(exact.Num()).Cmp(big.NewInt(maxSafeInt)) > 0 {
		return fmt.Sprintf("the integer %s is beyond ±(2^53−1); a JSON reader such as pi's rounds it", lit)
	}
	back, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if back == nil || back.Cmp(exact) != 0 {
		return fmt.Sprintf("the number %s has more digits than a float64 holds; it would read back as %s", lit, strconv.FormatFloat(f, 'g', -1, 64))
	}
	return ""
}

// stringSurvives reports whether a JSON string literal (with quotes) holds
// no \u escape of a lone UTF-16 surrogate.
func stringSurvives(lit []byte) bool {
	if !bytes.Contains(lit, []byte(`\u`)) { // no copy of a 50 MB literal (SPEC §2.8)
		return true
	}
	s := string(lit)
	for i := 0; i+5 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if s[i+1] != 'u' {
			i++ // skip the escaped character
			continue
		}
		r, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
		if err != nil {
			return false
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF: // a high surrogate needs a low one right after
			if i+11 >= len(s) || s[i+6] != '\\' || s[i+7] != 'u' {
				return false
			}
			lo, err := strconv.ParseUint(s[i+8:i+12], 16, 16)
			if err != nil || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return false
		default:
			i += 5
		}
	}
	return true
}
