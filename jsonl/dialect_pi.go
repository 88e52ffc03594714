package jsonl

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/grove-sessions/grove/errs"
)

// Reading the lines of the pi and plain dialects (SPEC §3.1, §3.2): a pi
// header and its versions 1 to 3, the entries of each, and the plain
// entries of a file without a header. The other dialects are in
// dialect_read.go.

func (piRules) read(p *parser, l Line, o object, typ string) error { return p.piEntry(l, o, typ) }

func (plainRules) read(p *parser, l Line, o object, typ string) error { return p.plainEntry(l, o) }

func (p *parser) plainEntry(l Line, o object) error {
	id, err := wantString(o, "id", "")
	if err == nil && id == "" {
		err = fieldErr("id", "is empty")
	}
	if err != nil {
		return p.bad(l, "%s", err)
	}
	e := Entry{ID: id}
	if e.ParentID, e.Root, err = parentOf(o); err != nil {
		return p.bad(l, "%s", err)
	}
	ts, err := want(o, "timestamp", "", 'n')
	if err != nil {
		return p.bad(l, "%s", err)
	}
	f, perr := strconv.ParseFloat(string(ts), 64)
	if perr != nil {
		return p.bad(l, "timestamp: not a finite number")
	}
	// Milliseconds beyond ±(2^53−1) cannot survive a round trip through a
	// JSON number (SPEC §5) and would overflow int64 when converted.
	if f > maxSafeInt || f < -maxSafeInt {
		return p.bad(l, "timestamp: %s is outside ±(2^53−1) milliseconds", ts)
	}
	e.Timestamp, e.HasTime = int64(f), true
	if e.Type, err = wantString(o, "type", ""); err != nil {
		return p.bad(l, "%s", err)
	}
	switch e.Type {
	case "message":
		if e.Role, err = checkPlainMessage(o["message"]); err != nil {
			return p.bad(l, "%s", err)
		}
	case "metadata":
		if e.Key, err = wantString(o, "key", ""); err == nil && e.Key == "" {
			err = fieldErr("key", "is empty")
		}
		if err == nil {
			v, ok := o["value"]
			if !ok {
				err = fieldErr("value", "missing")
			} else if jsonKind(v) == 's' {
				_ = json.Unmarshal(v, &e.Value)
			}
		}
		if err != nil {
			return p.bad(l, "%s", err)
		}
	default:
		return p.bad(l, "type: is %q, want \"message\" or \"metadata\" (plain dialect, no header)", e.Type)
	}
	return p.emit(l, e)
}

// parentOf reads parentId: a string, or null for a root.
func parentOf(o object) (string, bool, *schemaError) {
	v, ok := o["parentId"]
	switch k := jsonKind(v); {
	case !ok:
		return "", false, fieldErr("parentId", "missing, want a string or null")
	case k == 'z':
		return "", true, nil
	case k == 's':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false, fieldErr("parentId", "unreadable string")
		}
		return s, false, nil
	default:
		return "", false, fieldErr("parentId", "is %s, want a string or null", kindNames[k])
	}
}

func (p *parser) header(l Line, o object) error {
	h := &Header{Line: l.Num, Offset: l.BodyOffset(), Version: 1}
	var err *schemaError
	if h.ID, err = wantString(o, "id", ""); err == nil && h.ID == "" {
		err = fieldErr("id", "is empty")
	}
	if err != nil {
		return p.bad(l, "session header: %s", err)
	}
	if v, ok := o["version"]; ok {
		n, perr := strconv.Atoi(string(bytes.TrimSpace(v)))
		if perr != nil || n < 1 {
			return p.bad(l, "session header: version: is %s, want a positive integer", v)
		}
		h.Version = n
	}
	if h.Version > 3 {
		p.warn(l, errs.CodeUnknownVersion, "pi session version %d is newer than 3; read as version 3", h.Version)
	}
	h.Cwd, _ = optString(o, "cwd", "")
	if h.ParentSession, _ = optString(o, "parentSession", ""); h.ParentSession == "" {
		h.ParentSession, _ = optString(o, "branchedFrom", "")
	}
	h.Timestamp, _ = parseISOTime(o["timestamp"])
	h.Raw = append(json.RawMessage(nil), l.Bytes...)
	p.surrogates(l)
	p.version = h.Version
	p.res.Header = h
	if p.version == 1 {
		p.v1IDs = append(p.v1IDs[:0], "") // the header is parsed line 0
	}
	return nil
}

func (p *parser) piEntry(l Line, o object, typ string) error {
	if typ == "session" {
		if p.res.Header == nil && !p.resumed { // the first header was bad; take this one
			return p.header(l, o)
		}
		p.warn(l, errs.CodeExtraHeader, "a second session header is ignored")
		return nil
	}
	if p.version == 0 { // no usable header: read as version 3
		p.version = 3
	}
	if _, err := wantString(o, "type", ""); err != nil {
		return p.bad(l, "%s", err)
	}
	e := Entry{Type: typ}
	var err *schemaError
	if p.version == 1 {
		e.ID = "L" + strconv.Itoa(l.Num)
		e.ParentID, e.Root = p.prevID, p.prevID == ""
	} else {
		if e.ID, err = wantString(o, "id", ""); err == nil && e.ID == "" {
			err = fieldErr("id", "is empty")
		}
		if err == nil {
			e.ParentID, e.Root, err = parentOf(o)
		}
		if err != nil {
			return p.bad(l, "%s", err)
		}
	}
	for _, f := range piRequired[typ] {
		if _, err := want(o, f.field, "", f.kind); err != nil {
			return p.bad(l, "%s entry: %s", typ, err)
		}
	}
	switch typ {
	case "message":
		m, _ := decodeObject(o["message"], "message")
		if e.Role, err = wantString(m, "role", "message"); err != nil {
			return p.bad(l, "%s", err)
		}
	case "compaction":
		if p.version == 1 {
			if v, ok := o["firstKeptEntryIndex"]; ok {
				if n, perr := strconv.Atoi(string(bytes.TrimSpace(v))); perr == nil && n >= 0 && n < len(p.v1IDs) {
					e.FirstKept = p.v1IDs[n]
				}
			} else {
				e.FirstKept, _ = optString(o, "firstKeptEntryId", "")
			}
		} else if e.FirstKept, err = optString(o, "firstKeptEntryId", ""); err != nil {
			// Absent or null is valid: pi writes such a compaction when it
			// migrates a v1 one whose index names no entry; it keeps nothing
			// before it (SPEC §3.2). Another kind is still a bad line.
			return p.bad(l, "compaction entry: %s", err)
		}
	case "label":
		e.TargetID, _ = optString(o, "targetId", "")
		if e.Label, err = optString(o, "label", ""); err != nil {
			return p.bad(l, "label entry: %s", err)
		}
	case "session_info":
		if e.Name, err = optString(o, "name", ""); err != nil {
			return p.bad(l, "session_info entry: %s", err)
		}
	}
	if ts, ok := parseISOTime(o["timestamp"]); ok {
		e.Timestamp, e.HasTime = ts, true
	} else {
		p.warn(l, errs.CodeBadTimestamp, "timestamp is missing or not an ISO-8601 time")
	}
	if p.version == 1 {
		p.prevID = e.ID
		p.v1IDs[len(p.v1IDs)-1] = e.ID
	}
	return p.emit(l, e)
}
