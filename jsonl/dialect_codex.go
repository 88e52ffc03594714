package jsonl

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/grove-sessions/grove/errs"
)

// The codex dialect (SPEC §3.5, FORMATS.md §2): Codex CLI rollouts, a
// session_meta header, then rollout items with no ids in one chain. The
// pairing of event_msg copies with their response items is in
// codex_pair.go, its search text in text_codex.go.

type codexRules struct{}

func (codexRules) Dialect() Dialect { return Codex }

// Message is a response item's payload (a legacy bare item is its own
// payload), or the payload of an event_msg user_message or agent_message
// that is a message of its own (codex_pair.go) exactly as stored:
// {"type":"user_message","message":"…","images":[…]},
// {"type":"agent_message","message":"…"}. An event is not made into a
// response item: its payload is what the line holds (SPEC §3.1's "nothing
// reshaped"), its type says which it is, its text is in "message".
func (codexRules) Message(typ string, raw []byte) json.RawMessage {
	switch typ {
	case "event_msg":
		return Field(raw, "payload")
	case "response_item":
	default:
		return nil
	}
	if p := Field(raw, "payload"); p != nil {
		return p
	}
	return json.RawMessage(raw) // a legacy bare item is its own payload
}

// HasMessage: every response item, and an event_msg that is a user or
// assistant message of its own (Role user or assistant; its copies keep
// the payload type as their Role).
func (codexRules) HasMessage(typ, role string) bool {
	return typ == "response_item" || typ == "event_msg" && (role == "user" || role == "assistant")
}
func (codexRules) AppendSearchText(dst []byte, e *Entry) []byte {
	if e.Copy {
		return dst
	}
	return appendCodexText(dst, e.Type, e.Raw)
}

// UserText is the text of a response_item user message (codexUserText) or
// of an event_msg user_message of its own: "" for injected context.
func (codexRules) UserText(e *Entry) string {
	switch {
	case e.Role != "user":
		return ""
	case e.Type == "response_item":
		return codexUserText(e.Raw)
	case e.Type == "event_msg":
		return codexEventText(e.Raw)
	}
	return ""
}
func (codexRules) Writable() bool { return false }

// CopyAt is the copy CRC of the k-th (from 0) entry of one session whose
// CopyCRC is c: c itself for the first, a CRC of c and k after it. A
// Codex fork replays its parent's items in order, so the k-th item of a
// payload in the fork is a copy of the k-th in its parent; two items of
// one payload in one rollout (a prompt sent twice) are two entries, not
// copies of one another (SPEC §8 `search`, also_in). Never 0 for c != 0.
func CopyAt(c uint32, k int) uint32 {
	if c == 0 || k == 0 {
		return c
	}
	var b [4 + binary.MaxVarintLen64]byte
	binary.LittleEndian.PutUint32(b[:], c)
	n := binary.PutUvarint(b[4:], uint64(k))
	if x := crc32.ChecksumIEEE(b[:4+n]); x != 0 {
		return x
	}
	return 1
}

func (codexRules) CopyCRC(e *Entry) uint32 {
	if p := Field(e.Raw, "payload"); p != nil {
		return crc32.ChecksumIEEE(append([]byte(e.Type+"\x00"), p...))
	}
	return crc32.ChecksumIEEE(e.Raw) // a legacy bare item: no envelope
}

func (codexRules) read(p *parser, l Line, o object, typ string) error {
	_, hasPayload := o["payload"]
	_, hasTS := o["timestamp"]
	if typ == "session_meta" || (p.res.Header == nil && !p.resumed && typ == "" && !hasPayload && jsonKind(o["id"]) == 's') {
		if p.res.Header != nil || p.resumed {
			p.warn(l, errs.CodeExtraHeader, "a later session_meta line is ignored: the first one owns the session (a fork copies its parent's)")
			return nil
		}
		return p.codexHeader(l, o, typ == "session_meta")
	}
	typ, why := codexEntryType(o)
	if why != "" {
		return p.bad(l, "%s", why)
	}
	if typ == "" {
		return nil // a legacy state line: metadata
	}
	e := Entry{Type: typ}
	item, why := codexPayload(o, &e.Type)
	if why != "" {
		return p.bad(l, "%s", why)
	}
	ptype, _ := optString(item, "type", "")
	e.Role = ptype
	if e.Type == "response_item" && ptype == "message" {
		e.Role, _ = optString(item, "role", "")
	}
	p.chained(l, &e)
	switch {
	case !hasTS && p.headerMs != 0:
		e.Timestamp, e.HasTime = p.headerMs, true
	case !hasTS && !hasPayload:
	default:
		if ts, ok := parseISOTime(o["timestamp"]); ok {
			e.Timestamp, e.HasTime = ts, true
		} else {
			p.warn(l, errs.CodeBadTimestamp, "timestamp is missing or not an ISO-8601 time")
		}
	}
	if e.Type == "turn_context" {
		// The directory the turn ran in (FORMATS.md §2.3): the session's
		// workspace when the rollout has no session_meta.
		e.Cwd, _ = optString(item, "cwd", "")
	}
	if codexStartsTurn(e.Type, ptype) && l.Offset != p.turn.start {
		p.turn.begin(l.Offset)
	}
	p.turn.record(l.Offset, l.Offset+int64(l.Skip+len(l.Bytes))+1, e.Type, ptype, item)
	if k := codexEventKind(e.Type, ptype); k != codexNone {
		own, err := p.codexOwn(l)
		if err != nil {
			return err
		}
		if own {
			e.Role = k.ownRole()
		} else {
			e.Copy = true
		}
	}
	return p.emit(l, e)
}

// codexItemOf is what the codex rules read of a parsed rollout line o that
// can be an entry: its entry type (a legacy bare item is a response_item),
// its payload object (the line itself for a bare item; nil when the
// payload is no object) and that payload's type. ok is false for a line
// that is no entry: a header, a legacy state line, a line whose type is no
// string, a response_item, event_msg or compacted line whose payload is no
// object (why says so for the last).
func codexItemOf(o object) (typ string, item object, ptype string, ok bool) {
	typ, why := codexEntryType(o)
	if why != "" || typ == "" {
		return "", nil, "", false
	}
	item, why = codexPayload(o, &typ)
	if why != "" {
		return "", nil, "", false
	}
	ptype, _ = optString(item, "type", "")
	return typ, item, ptype, true
}

// codexEntryType is the type of a rollout line that is no header: "" for a
// legacy state line (metadata), why non-"" when the type is no string.
func codexEntryType(o object) (typ, why string) {
	if t, _ := optString(o, "type", ""); t == "session_meta" {
		return "", ""
	}
	if _, ok := o["record_type"]; ok {
		if _, has := o["payload"]; !has {
			return "", ""
		}
	}
	if k := jsonKind(o["type"]); k != 's' {
		return "", fmt.Sprintf("type: is %s, want a string (a Codex rollout line is {timestamp, type, payload})", kindNames[k])
	}
	t, _ := optString(o, "type", "")
	return t, ""
}

// codexPayload is the payload object of the rollout line o of type *typ,
// which becomes response_item for a legacy bare item (no payload, no
// timestamp); nil when an unknown record's payload is no object; why
// non-"" when a response_item's, event_msg's or compacted line's is not.
func codexPayload(o object, typ *string) (object, string) {
	payload, hasPayload := o["payload"]
	_, hasTS := o["timestamp"]
	if !hasPayload && !hasTS {
		*typ = "response_item"
		return o, ""
	}
	if !hasPayload {
		return o, ""
	}
	item, err := decodeObject(payload, "payload")
	if err != nil {
		if *typ == "response_item" || *typ == "event_msg" || *typ == "compacted" {
			return nil, fmt.Sprintf("%s line: %s", *typ, err)
		}
		return nil, ""
	}
	return item, ""
}

// rolloutUUID matches the UUID at the end of a rollout's file stem.
var rolloutUUID = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// codexHeader reads the first session_meta line (or the pre-envelope
// header, whose members are the payload's).
func (p *parser) codexHeader(l Line, o object, envelope bool) error {
	meta := o
	if envelope {
		var err *schemaError
		if meta, err = decodeObject(o["payload"], "payload"); err != nil {
			return p.bad(l, "session_meta line: %s", err)
		}
	}
	h := &Header{Line: l.Num, Offset: l.BodyOffset()}
	h.ID, _ = optString(meta, "id", "")
	h.Cwd, _ = optString(meta, "cwd", "")
	h.ParentSession, _ = optString(meta, "forked_from_id", "")
	if src, err := decodeObject(meta["source"], ""); err == nil && h.ParentSession == "" {
		if sub, err := decodeObject(src["subagent"], ""); err == nil {
			if ts, err := decodeObject(sub["thread_spawn"], ""); err == nil {
				h.ParentSession, _ = optString(ts, "parent_thread_id", "")
			}
		}
	}
	if t, ok := parseISOTime(meta["timestamp"]); ok {
		h.Timestamp = t
	} else if t, ok := parseISOTime(o["timestamp"]); ok {
		h.Timestamp = t
	}
	if u := rolloutUUID.FindString(strings.TrimSuffix(filepath.Base(p.opts.Path), ".jsonl")); u != "" && h.ID != "" && !strings.EqualFold(u, h.ID) {
		p.warn(l, errs.CodeSessionIDMismatch, "the file name holds session id %s but the header says %s; the header's is used", u, h.ID)
	}
	h.Raw = append(json.RawMessage(nil), l.Bytes...)
	p.surrogates(l)
	p.res.Header, p.headerMs = h, h.Timestamp
	return nil
}
