package jsonl

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/grove-sessions/grove/errs"
)

// The pi dialect (SPEC §3.2): its rules, and reading a pi header and the
// entries of versions 1 to 3.

type piRules struct{}

func (piRules) Dialect() Dialect { return Pi }
func (piRules) Message(typ string, raw []byte) json.RawMessage {
	if typ != "message" {
		return nil
	}
	return Field(raw, "message")
}
func (piRules) HasMessage(typ, _ string) bool                { return typ == "message" }
func (piRules) AppendSearchText(dst []byte, e *Entry) []byte { return AppendSearchText(dst, e.Raw) }
func (piRules) UserText(e *Entry) string {
	if e.Type != "message" || e.Role != "user" {
		return ""
	}
	return MessageText(e.Raw)
}
func (piRules) Writable() bool          { return true }
func (piRules) CopyCRC(e *Entry) uint32 { return 0 }

func (piRules) read(p *parser, l Line, o object, typ string) error { return p.piEntry(l, o, typ) }

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
	case "context_edit":
		// pi 1.x: the entry whose messages it edits. A version 1 file has
		// no ids: pi gives its entries random ones when it opens it, so
		// the edit names none of them.
		if p.version >= 2 {
			e.TargetID, _ = optString(o, "targetId", "")
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
