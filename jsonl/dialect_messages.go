package jsonl

import "encoding/json"

// The messages dialect (SPEC §3.6): the resume chapter's log, one chat
// message per line, no header, no ids.

type messagesRules struct{}

func (messagesRules) Dialect() Dialect { return Messages }
func (messagesRules) Message(_ string, raw []byte) json.RawMessage {
	return json.RawMessage(raw)
}
func (messagesRules) HasMessage(_, _ string) bool { return true }
func (messagesRules) AppendSearchText(dst []byte, e *Entry) []byte {
	return appendAnthropicMessageText(dst, e.Raw)
}
func (messagesRules) UserText(e *Entry) string {
	if e.Role != "user" {
		return ""
	}
	return anthropicUserText(e.Raw)
}
func (messagesRules) Writable() bool          { return true }
func (messagesRules) CopyCRC(e *Entry) uint32 { return 0 }

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
