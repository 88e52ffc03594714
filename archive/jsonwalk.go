package archive

import (
	"encoding/json"

	"github.com/grove-sessions/grove/jsonl"
)

// Members calls f with the key and the raw value of each member of the
// JSON object raw, in the order written, until f returns false; values are
// sub-slices of raw, nothing is decoded (SPEC §2.8). It reports false,
// without calling f, when raw is not one valid JSON object (jsonl.Members).
func Members(raw []byte, f func(key string, value []byte) bool) bool { return jsonl.Members(raw, f) }

// Elements calls f with each raw element of the JSON array raw, in order.
// It reports false, without calling f, when raw is not one valid JSON
// array (jsonl.Elements).
func Elements(raw []byte, f func(elem []byte)) bool { return jsonl.Elements(raw, f) }

// Field is the raw value of key in the JSON object raw, byte for byte (the
// last of a key given twice), nil when raw is no object or lacks the key
// (jsonl.Field).
func Field(raw []byte, key string) json.RawMessage { return jsonl.Field(raw, key) }
