package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// object is a decoded JSON object whose values stay as raw bytes, so that
// nothing is reshaped (SPEC §3.1: nothing in a line may be lost).
type object map[string]json.RawMessage

// schemaError is a validation failure at a field path such as
// "message.content[0].arguments".
type schemaError struct {
	field string
	msg   string
}

func (e *schemaError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

func fieldErr(field, format string, args ...any) *schemaError {
	return &schemaError{field: field, msg: fmt.Sprintf(format, args...)}
}

// jsonKind returns the kind of a raw JSON value by its first byte:
// 'o' object, 'a' array, 's' string, 'n' number, 'b' boolean, 'z' null,
// or 0 for an absent value.
func jsonKind(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	switch raw[0] {
	case '{':
		return 'o'
	case '[':
		return 'a'
	case '"':
		return 's'
	case 't', 'f':
		return 'b'
	case 'n':
		return 'z'
	default:
		return 'n'
	}
}

var kindNames = map[byte]string{'o': "an object", 'a': "an array", 's': "a string", 'n': "a number", 'b': "a boolean", 'z': "null", 0: "absent"}

func want(o object, field, path string, kind byte) (json.RawMessage, *schemaError) {
	v, ok := o[field]
	got := jsonKind(v)
	if !ok {
		return nil, fieldErr(join(path, field), "missing, want %s", kindNames[kind])
	}
	if got != kind {
		return nil, fieldErr(join(path, field), "is %s, want %s", kindNames[got], kindNames[kind])
	}
	return v, nil
}

func wantString(o object, field, path string) (string, *schemaError) {
	v, err := want(o, field, path, 's')
	if err != nil {
		return "", err
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", fieldErr(join(path, field), "unreadable string")
	}
	return s, nil
}

// optString returns the string at field, "" when the field is absent or null.
func optString(o object, field, path string) (string, *schemaError) {
	v, ok := o[field]
	if !ok || jsonKind(v) == 'z' {
		return "", nil
	}
	return wantString(o, field, path)
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// decodeObject splits raw, a JSON object inside an already validated line,
// into its members. Values are sub-slices of raw, not copies. A key given
// twice keeps its last value, as JSON.parse does.
func decodeObject(raw json.RawMessage, path string) (object, *schemaError) {
	if k := jsonKind(raw); k != 'o' {
		return nil, fieldErr(path, "is %s, want an object", kindNames[k])
	}
	o := make(object, 8)
	ok := walkObject(raw, func(key, value []byte) bool {
		o[decodeKey(key)] = value
		return true
	})
	if !ok {
		return nil, fieldErr(path, "unreadable object")
	}
	return o, nil
}

// decodeKey turns a raw JSON key (with quotes) into its string; only keys
// with escapes go through encoding/json.
func decodeKey(key []byte) string {
	inner := key[1 : len(key)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			if json.Unmarshal(key, &s) == nil {
				return s
			}
			break
		}
	}
	return string(inner)
}

// decodeArray splits raw, a JSON array inside an already validated line,
// into its elements (sub-slices of raw).
func decodeArray(raw json.RawMessage, path string) ([]json.RawMessage, *schemaError) {
	if k := jsonKind(raw); k != 'a' {
		return nil, fieldErr(path, "is %s, want an array", kindNames[k])
	}
	var a []json.RawMessage
	if !walkArray(raw, func(e []byte) { a = append(a, e) }) {
		return nil, fieldErr(path, "unreadable array")
	}
	return a, nil
}

// parseISOTime reads a pi timestamp: ISO-8601 / RFC 3339, with or without
// fractional seconds (SPEC §3.2). It returns Unix milliseconds.
func parseISOTime(raw json.RawMessage) (int64, bool) {
	if jsonKind(raw) != 's' {
		return 0, false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

// --- the plain dialect (SPEC §3.1) ---

// checkPlainMessage validates an agent message of the plain dialect: user,
// assistant or toolResult, with the content blocks SPEC §3.1 names. Fields it
// does not name are allowed and kept.
func checkPlainMessage(raw json.RawMessage) (role string, err *schemaError) {
	msg, err := decodeObject(raw, "message")
	if err != nil {
		return "", err
	}
	role, err = wantString(msg, "role", "message")
	if err != nil {
		return "", err
	}
	switch role {
	case "user":
		c, ok := msg["content"]
		if !ok {
			return role, fieldErr("message.content", "missing, want a string or an array")
		}
		if jsonKind(c) == 's' {
			return role, nil
		}
		return role, checkBlocks(c, "message.content", "text", "image")
	case "assistant":
		c, err := want(msg, "content", "message", 'a')
		if err != nil {
			return role, err
		}
		return role, checkBlocks(c, "message.content", "text", "thinking", "toolCall")
	case "toolResult":
		if _, err := wantString(msg, "toolCallId", "message"); err != nil {
			return role, err
		}
		if _, err := wantString(msg, "toolName", "message"); err != nil {
			return role, err
		}
		if _, err := want(msg, "isError", "message", 'b'); err != nil {
			return role, err
		}
		c, err := want(msg, "content", "message", 'a')
		if err != nil {
			return role, err
		}
		return role, checkBlocks(c, "message.content", "text", "image")
	default:
		return role, fieldErr("message.role", "is %q, want user, assistant or toolResult", role)
	}
}

// checkBlocks validates an array of content blocks whose type is one of allowed.
func checkBlocks(raw json.RawMessage, path string, allowed ...string) *schemaError {
	blocks, err := decodeArray(raw, path)
	if err != nil {
		return err
	}
	for i, b := range blocks {
		p := fmt.Sprintf("%s[%d]", path, i)
		o, err := decodeObject(b, p)
		if err != nil {
			return err
		}
		typ, err := wantString(o, "type", p)
		if err != nil {
			return err
		}
		ok := false
		for _, a := range allowed {
			ok = ok || typ == a
		}
		if !ok {
			return fieldErr(p+".type", "is %q, want one of %v", typ, allowed)
		}
		switch typ {
		case "text":
			_, err = wantString(o, "text", p)
		case "thinking":
			_, err = wantString(o, "thinking", p)
		case "image":
			if _, err = wantString(o, "data", p); err == nil {
				_, err = wantString(o, "mimeType", p)
			}
		case "toolCall":
			if _, err = wantString(o, "id", p); err == nil {
				if _, err = wantString(o, "name", p); err == nil {
					_, err = want(o, "arguments", p, 'o')
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// --- the pi dialect (SPEC §3.2) ---

// piRequired lists, per known pi entry type, the fields it must carry and
// their JSON kinds (pi's session format; SPEC §3.2). A compaction's
// firstKeptEntryId is optional (without it, it keeps nothing before it), and
// a v1 compaction carries firstKeptEntryIndex instead; parsePi handles both.
// pi 1.x's usage and context_edit require nothing: pi reads no field of a
// usage entry, and a context_edit without a string targetId edits nothing
// while one without a replacement fails only the contexts it reaches
// (internal/agent/pi), so neither is a bad line, which would cut the tree
// pi reads whole.
var piRequired = map[string][]struct {
	field string
	kind  byte
}{
	"message":               {{"message", 'o'}},
	"thinking_level_change": {{"thinkingLevel", 's'}},
	"model_change":          {{"provider", 's'}, {"modelId", 's'}},
	"compaction":            {{"summary", 's'}},
	"branch_summary":        {{"fromId", 's'}, {"summary", 's'}},
	"custom":                {{"customType", 's'}},
	"custom_message":        {{"customType", 's'}},
	"label":                 {{"targetId", 's'}},
	"session_info":          {},
	"usage":                 {},
	"context_edit":          {},
}

// KnownPiType reports whether typ is one of the nine entry types of SPEC
// §3.2 or pi 1.x's usage and context_edit.
func KnownPiType(typ string) bool {
	_, ok := piRequired[typ]
	return ok
}
