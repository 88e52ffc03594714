package jsonl

import (
	"encoding/json"
	"strconv"
	"strings"
)

// What pi's session list (`/resume`, SessionManager.list) reads of a
// message entry: SPEC §3.2 takes a session's modified time and §8 its
// first_message from there.

// maxDateMs is the largest time, in milliseconds from the epoch either
// way, that a JavaScript Date holds (±8.64e15).
const maxDateMs = 8.64e15

// ActivityTime is the time a user or assistant message entry counts for in
// a session's modified time (SPEC §3.2, pi's getLastActivityTime): the
// message's own `timestamp` when it is a JSON number (Unix milliseconds,
// cut to an integer), else entryMs, the entry's timestamp, when hasEntryMs.
// raw is the entry line. ok is false for a line whose message has no
// `content` member (pi's isMessageWithContent) or that has neither time.
// The caller checks the entry's type and role.
func ActivityTime(raw []byte, entryMs int64, hasEntryMs bool) (ms int64, ok bool) {
	var msg []byte
	walkObject(raw, func(key, v []byte) bool {
		if string(key) == `"message"` {
			msg = v
		}
		return true
	})
	var ts []byte
	content := false
	walkObject(msg, func(key, v []byte) bool {
		switch string(key) {
		case `"timestamp"`:
			ts = v
		case `"content"`:
			content = true
		}
		return true
	})
	if !content {
		return 0, false
	}
	if len(ts) > 0 && (ts[0] == '-' || ts[0] >= '0' && ts[0] <= '9') {
		if f, err := strconv.ParseFloat(string(ts), 64); err == nil && f >= -maxDateMs && f <= maxDateMs {
			return int64(f), true
		}
	}
	return entryMs, hasEntryMs
}

// MessageText is the text pi's session list shows of the message of the
// entry line raw (pi's extractTextContent): its content when that is a
// string, else the `text` of its blocks of type "text" joined by one
// space (images and other blocks left out). It is "" when the line has
// no such text; it never fails. Lone surrogates read as U+FFFD.
func MessageText(raw []byte) string {
	var msg, content []byte
	walkObject(raw, func(key, v []byte) bool {
		if string(key) == `"message"` {
			msg = v
		}
		return true
	})
	walkObject(msg, func(key, v []byte) bool {
		if string(key) == `"content"` {
			content = v
		}
		return true
	})
	if len(content) > 0 && content[0] == '"' {
		var s string
		_ = json.Unmarshal(content, &s)
		return s
	}
	var parts []string
	eachTextBlock(content, func(text []byte) {
		var s string
		_ = json.Unmarshal(text, &s) // a missing or non-string text joins as "", as in pi
		parts = append(parts, s)
	})
	return strings.Join(parts, " ")
}
