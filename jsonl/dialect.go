package jsonl

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
)

// Dialect names the format of a session file (SPEC §3). The names are the
// ones grove prints: pi, plain, messages, claude, codex.
type Dialect string

const (
	// Plain is the committed log of the session-tree chapter: no header,
	// every line an entry of type "message" or "metadata" (SPEC §3.1).
	Plain Dialect = "plain"
	// Pi is the format of the pi coding agent, versions 1 to 3 (SPEC §3.2).
	Pi Dialect = "pi"
	// Messages is the resume chapter's log: one chat message per line, no
	// header, no ids; entry ids are L<line> in one chain (SPEC §3.6). Entry
	// Type is "message", Role the line's role, "toolResult" for a user line
	// of tool_result blocks only (pi's name for such a message).
	Messages Dialect = "messages"
	// Claude is Claude Code's transcript: uuid/parentUuid trees, metadata
	// lines beside the entries (SPEC §3.4, FORMATS.md §1). Entry Type is the
	// line's type (user, assistant, system, progress, attachment, or an
	// unknown one kept as is), "compact_boundary" for a system line of that
	// subtype; Role is message.role for user and assistant lines
	// ("toolResult" for a user line of tool_result blocks only), the subtype
	// for other system lines.
	Claude Dialect = "claude"
	// Codex is a Codex CLI rollout: a session_meta header, then rollout
	// items with no ids, L<line> in one chain (SPEC §3.5, FORMATS.md §2).
	// Entry Type is the envelope type (response_item, event_msg,
	// turn_context, compacted, or an unknown one kept as is; a legacy bare
	// item is a response_item); Role is payload.role for a message item,
	// else the payload's type (function_call, reasoning, user_message, ...),
	// but for an event_msg user_message, agent_message or agent_reasoning
	// that no response item of its turn repeats: it is "user", "assistant"
	// or "reasoning", as the item it stands for (codex_pair.go).
	Codex Dialect = "codex"
)

// Dialects lists every dialect grove reads, in the order grove names them.
var Dialects = []Dialect{Pi, Plain, Messages, Claude, Codex}

// Roles are the roles grove's dialects give entries by name (Entry.Role),
// in the order grove lists them: a message's role in pi and plain files
// (SPEC §3.1, §3.2: user, assistant, toolResult, bashExecution, custom,
// branchSummary, compactionSummary; hookMessage before pi's version 3),
// in messages logs and Claude Code files (toolResult: a user message of
// tool results only), and a Codex entry's (FORMATS.md §2.4: a message's
// role, developer and system included; a response item's kind; the
// user_message, agent_message and agent_reasoning events that are copies,
// codex_pair.go). Any other role is one a file names itself (a Claude Code
// system line's subtype, a Codex item or event type grove has no name
// for): it is a role only where an entry has it.
var Roles = []string{
	"user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary", "hookMessage",
	"developer", "system", "reasoning", "function_call", "function_call_output", "custom_tool_call",
	"custom_tool_call_output", "local_shell_call", "web_search_call", "user_message", "agent_message", "agent_reasoning",
}

// Rules is what grove knows of one dialect besides reading its lines (which
// the reader does, with the committed-line rules of SPEC §2 shared by all):
// where an entry's message and search text are, and whether grove may write
// such a file. RulesOf gives the rules of a dialect.
type Rules interface {
	// Dialect is the dialect's name.
	Dialect() Dialect
	// Message is the message of the entry line raw of type typ as
	// MessagesOnPath returns it (SPEC §4, §3.4–3.6): a sub-slice of raw, the
	// value exactly as stored; nil when the entry carries no message.
	Message(typ string, raw []byte) json.RawMessage
	// HasMessage reports whether entries of type typ and role role (as the
	// reader gave them) carry a message: the lines Message must be given.
	HasMessage(typ, role string) bool
	// AppendSearchText appends the search text of the entry e (SPEC §7,
	// FORMATS.md §4) to dst, pieces separated by '\n'. It never fails: a
	// line that is not what it should be yields nothing.
	AppendSearchText(dst []byte, e *Entry) []byte
	// UserText is the text a session list shows of the user entry e (its
	// first_message, SPEC §8), "" when e is no user message with text or is
	// text the agent injected (Claude's isMeta, Codex's environment
	// context).
	UserText(e *Entry) string
	// CopyCRC is the CRC-32 (IEEE) of what a copy of the entry e in
	// another session file keeps unchanged, where the line itself changes
	// (search's also_in, SPEC §8): claude's message member (a fork keeps the
	// uuid, re-stamps sessionId), codex's payload (a fork replays items with
	// new timestamps). 0 where copies are byte-identical lines (pi, plain,
	// messages) or the entry has no such member.
	CopyCRC(e *Entry) uint32
	// Writable reports whether grove may append to such a file (SPEC §5):
	// pi, plain and messages; Claude Code and Codex files are refused with
	// wrong_dialect.
	Writable() bool

	// read takes one parsed committed line o of type typ ("" when it has
	// none) of a file of this dialect: an entry, a header or metadata
	// line, or a bad line (SPEC §3).
	read(p *parser, l Line, o object, typ string) error
}

// RulesOf returns the rules of dialect d; an unknown name gets plain's.
func RulesOf(d Dialect) Rules {
	switch d {
	case Pi:
		return piRules{}
	case Messages:
		return messagesRules{}
	case Claude:
		return claudeRules{}
	case Codex:
		return codexRules{}
	}
	return plainRules{}
}

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

type plainRules struct{ piRules }

func (plainRules) Dialect() Dialect { return Plain }

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
