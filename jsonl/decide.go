package jsonl

import (
	"path/filepath"
	"strings"
)

// Deciding a file's dialect (SPEC §3, FORMATS.md §0): which dialect a
// committed line points to, and where a file with no parseable line is
// found. The parser (reader.go) applies them; each dialect's lines are
// read in its own file (dialect_pi.go, dialect_plain.go,
// dialect_messages.go, dialect_claude.go, dialect_codex.go). The
// committed-line rules of §2 (splitting, BOM, blank lines, JSON, the tail)
// are the parser's and the same for all; each dialect's read takes one
// parsed committed line and makes it an entry (p.emit), a header or
// metadata line, or a bad line (p.bad).

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

// IsClaudeType reports whether typ is a line type that can only be
// Claude Code's (claudeTypes): what decides a file's dialect, and what
// tells a session file that must never be written over.
func IsClaudeType(typ string) bool { return claudeTypes[typ] }

// IsCodexType reports whether typ is an item type of a Codex rollout
// line's envelope (codexTypes).
func IsCodexType(typ string) bool { return codexTypes[typ] }

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
