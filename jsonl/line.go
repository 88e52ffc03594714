package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// One committed line as one JSON object (SPEC §2.4): valid UTF-8, no BOM
// past byte 0, no NUL, RFC 8259 JSON, an object. The dialect rules of §3
// then read the object.

// parseObject applies SPEC §2.4: valid UTF-8, one JSON object.
func parseObject(b []byte) (object, string) {
	o, _, why := parseLine(b)
	return o, why
}

// parseLine is parseObject that also gives the index in b of the first
// escaped lone surrogate (SPEC §2.9), or -1, which the JSON check finds on
// its way.
func parseLine(b []byte) (object, int, string) {
	if !utf8.Valid(b) {
		col := 0
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				col = i + 1
				break
			}
			i += n
		}
		return nil, -1, fmt.Sprintf("invalid UTF-8 at byte column %d", col)
	}
	if i := bytes.Index(b, bom); i >= 0 {
		return nil, -1, fmt.Sprintf("byte order mark at byte column %d (only allowed at byte 0 of the file)", i+1)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return nil, -1, fmt.Sprintf("NUL byte at byte column %d", i+1)
	}
	ok, lone := validJSONLone(b)
	if !ok {
		// Decode again only to learn where and why (encoding/json checks
		// validity before it decodes anything).
		var raw json.RawMessage
		err := json.Unmarshal(b, &raw)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, -1, fmt.Sprintf("invalid JSON at byte column %d: %s", se.Offset, se.Error())
		}
		return nil, -1, "invalid JSON"
	}
	switch k := jsonKind(b); k {
	case 'o':
	default:
		return nil, -1, fmt.Sprintf("JSON %s, want an object", strings.TrimPrefix(strings.TrimPrefix(kindNames[k], "a "), "an "))
	}
	o, err := decodeObject(b, "")
	if err != nil {
		return nil, -1, "unreadable JSON object"
	}
	return o, lone, ""
}
