package jsonl

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
)

// Reading the lines of each dialect (SPEC §3). The committed-line rules of
// §2 (splitting, BOM, blank lines, JSON, the tail) are the parser's and the
// same for all; each dialect's read takes one parsed committed line and
// makes it an entry (p.emit), a header or metadata line, or a bad line
// (p.bad).

// claudeTypes are the line types that can only be Claude Code's
// (FORMATS.md §0, SPEC §3): its entries and its metadata lines. The Agent
// SDK opens a transcript with an agent-setting line.
var claudeTypes = map[string]bool{
	"summary": true, "file-history-snapshot": true, "queue-operation": true, "user": true,
	"assistant": true, "system": true, "progress": true, "attachment": true, "last-prompt": true,
	"permission-mode": true, "custom-title": true, "ai-title": true, "mode": true, "pr-link": true,
	"tag": true, "relocated": true, "worktree-state": true, "agent-name": true, "content-replacement": true,
	"agent-setting": true,
}

// codexTypes are the item types of a Codex rollout line's envelope
// {"timestamp","type","payload"} (FORMATS.md §2.2).
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "compacted": true, "turn_context": true, "event_msg": true,
	"inter_agent_communication": true, "inter_agent_communication_metadata": true, "token_usage_record": true,
	"world_state": true, "retained_context": true, "security_risk_score": true, "realtime_item": true,
}

// classify is the dialect that the committed line o (of type typ, "" when
// it has none) points to, and whether the line decides it (SPEC §3): a
// line that can only belong to one dialect — a Codex header or envelope
// with a Codex type, a Claude line (uuid, parentUuid, sessionId or
// leafUuid, or a Claude type), a chat message (role and content, no type,
// id or uuid), a plain entry's id and parentId. Any other line is Plain,
// undecided: the file's dialect then comes from a later line or from where
// the file is (see parser.undecided). A pi header is decided by the caller.
func classify(o object, typ string) (d Dialect, decisive bool) {
	_, hasType := o["type"]
	_, hasRole := o["role"]
	_, hasID := o["id"]
	_, hasParentID := o["parentId"]
	switch {
	case typ == "session_meta" && jsonKind(o["payload"]) == 'o':
		return Codex, true
	case !hasType && !hasRole && !hasParentID && jsonKind(o["id"]) == 's' && jsonKind(o["timestamp"]) == 's':
		return Codex, true // the pre-envelope rollout header
	}
	for _, k := range [...]string{"uuid", "parentUuid", "sessionId", "leafUuid"} {
		if _, ok := o[k]; ok {
			return Claude, true
		}
	}
	if claudeTypes[typ] {
		return Claude, true
	}
	if codexTypes[typ] && jsonKind(o["timestamp"]) == 's' && jsonKind(o["payload"]) == 'o' {
		return Codex, true
	}
	_, hasContent := o["content"]
	if hasRole && hasContent && !hasType && !hasID {
		return Messages, true
	}
	return Plain, hasID && hasParentID
}

// DialectAt is the dialect of a file with no parseable committed line,
// from where it is (SPEC §3): a file named rollout-*.jsonl is codex, one
// under a Claude Code projects folder (…/.claude/projects/…,
// …/.config/claude/projects/…) claude, else plain.
func DialectAt(path string) Dialect {
	base := filepath.Base(path)
	if strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl") {
		return Codex
	}
	parts := strings.Split(filepath.ToSlash(filepath.Dir(path)), "/")
	for i := 1; i < len(parts); i++ {
		if parts[i] == "projects" && (parts[i-1] == ".claude" || parts[i-1] == "claude") {
			return Claude
		}
	}
	return Plain
}

// chained gives e the deterministic id of SPEC §3.2's version 1 rule,
// which the messages and codex dialects share: L<physical line>, parent
// the previous entry, the first a root.
func (p *parser) chained(l Line, e *Entry) {
	e.ID = "L" + strconv.Itoa(l.Num)
	e.ParentID, e.Root = p.prevID, p.prevID == ""
	p.prevID = e.ID
}

// --- messages (SPEC §3.6) ---

func (messagesRules) read(p *parser, l Line, o object, typ string) error {
	role, err := wantString(o, "role", "")
	if err != nil {
		return p.bad(l, "%s (a messages log holds one chat message per line)", err)
	}
	switch k := jsonKind(o["content"]); k {
	case 's', 'a':
	default:
		return p.bad(l, "content: is %s, want a string or an array (a messages log holds one chat message per line)", kindNames[k])
	}
	e := Entry{Type: "message", Role: role}
	if role == "user" && onlyToolResults(o["content"]) {
		e.Role = "toolResult"
	}
	p.chained(l, &e)
	return p.emit(l, e)
}

// onlyToolResults reports whether content, an Anthropic message's
// content, is a non-empty list of tool_result blocks only: a user message
// that answers tool calls, which grove gives the role "toolResult", as pi
// names such messages, so that `--role user` and "the last user message"
// mean what the user typed.
func onlyToolResults(content json.RawMessage) bool {
	if jsonKind(content) != 'a' {
		return false
	}
	n, ok := 0, true
	walkArray(content, func(b []byte) {
		n++
		o, err := decodeObject(b, "")
		if err != nil {
			ok = false
			return
		}
		if t, _ := optString(o, "type", ""); t != "tool_result" {
			ok = false
		}
	})
	return ok && n > 0
}

// --- claude (SPEC §3.4, FORMATS.md §1) ---

// ClaudeMeta is what the metadata lines and entries of a Claude Code file
// say of its session (FORMATS.md §1.3, §1.5), as read in file order.
type ClaudeMeta struct {
	SessionID   string    // the first sessionId field: a sub-agent file's parent session
	AgentID     string    // the first agentId field of an entry ("" outside sub-agent files and sidechains)
	CustomTitle *string   // the last custom-title line's customTitle (the user's /rename)
	AITitle     *string   // the last ai-title line's aiTitle
	Summaries   []Summary // summary lines, in file order
}

// Summary is a Claude Code summary line: a title for the conversation that
// ends at LeafUUID, which may be an entry of another file (FORMATS.md §1.5).
type Summary struct {
	LeafUUID string
	Text     string
}

func (claudeRules) read(p *parser, l Line, o object, typ string) error {
	m := p.claude()
	if m.SessionID == "" {
		m.SessionID, _ = optString(o, "sessionId", "")
	}
	uuid, _ := optString(o, "uuid", "")
	if jsonKind(o["uuid"]) != 's' || uuid == "" {
		if typ == "user" || typ == "assistant" {
			return p.bad(l, "%s line without a uuid: it cannot be placed in the tree", typ)
		}
		p.claudeMeta(l, o, typ, m)
		return nil
	}
	e := Entry{ID: uuid, Type: typ}
	if e.Type == "" {
		if _, ok := o["type"]; ok {
			return p.bad(l, "type: is %s, want a string", kindNames[jsonKind(o["type"])])
		}
		e.Type = "unknown" // an entry line without a type: kept as a tree node
	}
	switch v := o["parentUuid"]; jsonKind(v) {
	case 0, 'z':
		e.Root = true
	case 's':
		_ = json.Unmarshal(v, &e.ParentID)
		e.Root = e.ParentID == ""
	default:
		return p.bad(l, "parentUuid: is %s, want a string or null", kindNames[jsonKind(v)])
	}
	switch typ {
	case "user", "assistant":
		msg, err := decodeObject(o["message"], "message")
		if err != nil {
			return p.bad(l, "%s entry: %s", typ, err)
		}
		e.Role, _ = optString(msg, "role", "")
		if e.Role == "" {
			e.Role = typ
		}
		if e.Role == "user" && onlyToolResults(msg["content"]) {
			e.Role = "toolResult"
		}
	case "system":
		sub, _ := optString(o, "subtype", "")
		if sub == "compact_boundary" {
			e.Type = "compact_boundary"
			e.LogicalParent, _ = optString(o, "logicalParentUuid", "")
		} else {
			e.Role = sub
		}
	}
	e.Sidechain = string(o["isSidechain"]) == "true"
	e.Cwd, _ = optString(o, "cwd", "")
	if m.AgentID == "" {
		m.AgentID, _ = optString(o, "agentId", "")
	}
	if ts, ok := parseISOTime(o["timestamp"]); ok {
		e.Timestamp, e.HasTime = ts, true
	} else {
		p.warn(l, errs.CodeBadTimestamp, "timestamp is missing or not an ISO-8601 time")
	}
	return p.emit(l, e)
}

// claudeMeta keeps what a metadata line says of the session; the line is
// counted, never an error (FORMATS.md §1.2: unknown types are metadata).
func (p *parser) claudeMeta(l Line, o object, typ string, m *ClaudeMeta) {
	switch typ {
	case "custom-title":
		if t, err := optString(o, "customTitle", ""); err == nil {
			m.CustomTitle = &t
		}
	case "ai-title":
		if t, err := optString(o, "aiTitle", ""); err == nil {
			m.AITitle = &t
		}
	case "summary":
		leaf, _ := optString(o, "leafUuid", "")
		text, _ := optString(o, "summary", "")
		if text != "" {
			m.Summaries = append(m.Summaries, Summary{LeafUUID: leaf, Text: text})
		}
	}
}

func (p *parser) claude() *ClaudeMeta {
	if p.res.Claude == nil {
		p.res.Claude = &ClaudeMeta{}
	}
	return p.res.Claude
}

// --- codex (SPEC §3.5, FORMATS.md §2) ---

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
