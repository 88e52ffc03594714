package kit

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/jsonl"
)

// ObjectFields decodes the JSON object raw one level deep, as json.Unmarshal
// into a map[string]json.RawMessage does (of a key given twice the last
// wins), but each value is a sub-slice of raw rather than a copy, so a
// 50 MB image in a line is not held twice (SPEC §2.8). ok is false when raw
// is not one valid JSON object (JSON null included).
func ObjectFields(raw []byte) (map[string]json.RawMessage, bool) {
	m := map[string]json.RawMessage{}
	if !jsonl.Members(raw, func(k string, v []byte) bool { m[k] = v; return true }) {
		return nil, false
	}
	return m, true
}

// MarshalOrdered writes a JSON object of the key/value pairs kv (string,
// json.RawMessage, ...) in that order, leaving out keys whose value is nil
// (JavaScript's undefined). Values are compacted; strings keep <, > and &
// unescaped.
func MarshalOrdered(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := kv[i+1].(json.RawMessage)
		if v == nil {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(JSONString(kv[i].(string)))
		b.WriteByte(':')
		if json.Compact(&b, v) != nil {
			b.WriteString("null")
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// JSONString is s as a JSON string, with <, > and & left as they are.
func JSONString(s string) json.RawMessage { return json.RawMessage(JSONText(s)) }

// JSONText renders a decoded JSON value compactly for people: &, < and >
// stay as they are (json.Marshal would write \u0026 for the && of a shell
// command). "" when v cannot be encoded.
func JSONText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// RawJSONText is a raw JSON value as written, compacted; "null" when it is
// missing.
func RawJSONText(v json.RawMessage) string {
	if v == nil {
		return "null"
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// Wrap makes a one-element JSON array.
func Wrap(v json.RawMessage) json.RawMessage {
	return append(append(json.RawMessage{'['}, v...), ']')
}

// OrNull is v, or JSON null when v is missing.
func OrNull(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

// DecodeLoose decodes raw into v, skipping fields of an unexpected type;
// false when raw is no JSON object.
func DecodeLoose(raw []byte, v any) bool {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		return errors.As(err, &te)
	}
	return true
}

// Truthy is JavaScript's truthiness of a JSON value; a missing value
// (nil) is undefined, which is falsy.
func Truthy(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0, string(v) == "null", string(v) == "false", string(v) == `""`:
		return false
	case isNumber(v):
		f, err := strconv.ParseFloat(string(v), 64)
		return err != nil || f != 0
	}
	return true
}

// IsZero reports whether v is the JSON number 0 (JavaScript's v === 0).
func IsZero(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	if !isNumber(v) {
		return false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return err == nil && f == 0
}

func isNumber(v []byte) bool { return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) }

// JSString is JavaScript's String(v) for a JSON value, as a template
// literal ${v} writes it: a string as it is, undefined for a missing value,
// numbers as JavaScript prints them, objects as "[object Object]", arrays
// as their elements joined by commas.
func JSString(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0:
		return "undefined"
	case v[0] == '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return s
	case v[0] == '{':
		return "[object Object]"
	case v[0] == '[':
		var items []json.RawMessage
		_ = json.Unmarshal(v, &items)
		parts := make([]string, len(items))
		for i, it := range items {
			if s := string(bytes.TrimSpace(it)); s != "null" {
				parts[i] = JSString(it)
			}
		}
		return strings.Join(parts, ",")
	case isNumber(v):
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return string(v)
		}
		return jsNumber(f)
	}
	return string(v) // true, false, null
}

// jsNumber formats f as JavaScript's Number.prototype.toString does:
// plain digits from 1e-6 up to 1e21, exponent notation beyond.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}
