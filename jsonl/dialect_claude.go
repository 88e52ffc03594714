package jsonl

import (
	"encoding/json"
	"hash/crc32"

	"github.com/grove-sessions/grove/errs"
)

// The claude dialect (SPEC §3.4, FORMATS.md §1): Claude Code's
// transcripts, uuid/parentUuid trees with metadata lines beside the
// entries. Its search text is in text_agents.go.

type claudeRules struct{}

func (claudeRules) Dialect() Dialect { return Claude }
func (claudeRules) Message(typ string, raw []byte) json.RawMessage {
	if typ != "user" && typ != "assistant" {
		return nil
	}
	return Field(raw, "message")
}
func (claudeRules) HasMessage(typ, _ string) bool { return typ == "user" || typ == "assistant" }
func (claudeRules) AppendSearchText(dst []byte, e *Entry) []byte {
	return appendClaudeText(dst, e.Type, e.Raw)
}
func (claudeRules) UserText(e *Entry) string {
	if e.Type != "user" {
		return ""
	}
	return claudeUserText(e.Raw)
}
func (claudeRules) Writable() bool { return false }
func (claudeRules) CopyCRC(e *Entry) uint32 {
	if m := Field(e.Raw, "message"); m != nil {
		return crc32.ChecksumIEEE(m)
	}
	return 0
}

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
