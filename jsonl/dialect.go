package jsonl

import (
	"encoding/json"
	"strconv"
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

// chained gives e the deterministic id of SPEC §3.2's version 1 rule,
// which the messages and codex dialects share: L<physical line>, parent
// the previous entry, the first a root.
func (p *parser) chained(l Line, e *Entry) {
	e.ID = "L" + strconv.Itoa(l.Num)
	e.ParentID, e.Root = p.prevID, p.prevID == ""
	p.prevID = e.ID
}
