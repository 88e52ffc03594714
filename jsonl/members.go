package jsonl

import (
	"bytes"
	"encoding/json"
)

// Members calls fn with the key and the raw value of each member of the
// JSON object raw, in the order written, until fn returns false. Values are
// sub-slices of raw (capped, so appending to one never writes into raw), byte for byte: nothing is copied or decoded, so a 50 MB
// string member costs no memory (SPEC §2.8). A key given twice is passed
// twice. Members reports false, without calling fn, when raw is not one
// valid JSON object (surrounding JSON whitespace is allowed).
func Members(raw []byte, fn func(key string, value []byte) bool) bool {
	if !json.Valid(raw) {
		return false
	}
	return walkObject(raw, func(k, v []byte) bool { return fn(jsonKey(k), v[:len(v):len(v)]) })
}

// Elements calls fn with each raw element of the JSON array raw, in order,
// as sub-slices of raw (see Members). It reports false, without calling fn,
// when raw is not one valid JSON array.
func Elements(raw []byte, fn func(elem []byte)) bool {
	if !json.Valid(raw) {
		return false
	}
	return walkArray(raw, func(e []byte) { fn(e[:len(e):len(e)]) })
}

// jsonKey is the quoted JSON string k decoded as encoding/json decodes map
// keys; plain ASCII keys (all that agents write) are not run through it.
func jsonKey(k []byte) string {
	plain := bytes.IndexByte(k, '\\') < 0
	for _, c := range k {
		if c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return string(k[1 : len(k)-1])
	}
	var s string
	_ = json.Unmarshal(k, &s)
	return s
}

// IsCompact reports whether the JSON text raw has no whitespace outside its
// strings, so json.Compact would return it unchanged. It does not validate.
func IsCompact(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			return false
		case '"':
			end := stringEnd(raw, i)
			if end < 0 {
				return false
			}
			i = end - 1
		}
	}
	return true
}
