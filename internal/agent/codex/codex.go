// Package codex is grove's knowledge of the Codex CLI (SPEC §3.5,
// FORMATS.md §2): its roots ($CODEX_HOME, else ~/.codex: sessions and
// archived_sessions), which files there are rollouts (history.jsonl and
// session_index.jsonl are not; a *.jsonl.zst is listed, never read), a
// rollout's id (the header's, else the UUID its name ends with), the
// preview of its lines, and its model context (Codex's own rebuild of the
// history it resumes with: compactions, rollbacks).
//
// Its lines are read by jsonl/dialect_codex.go (the session_meta header,
// L<line> entries in one chain) and jsonl/codex_pair.go (an event_msg
// that repeats a response item is a copy), their search text by
// jsonl/text_codex.go. grove never writes its files (SPEC §5).
//
// # Caveats
//
//   - The context does not apply Codex's truncation of long tool outputs
//     nor its 20,000-token cap on rebuilt user messages, and does not make
//     up the initial context Codex sends but never writes.
//   - A compressed rollout's id comes from its name alone: grove cannot
//     open it to read its header.
package codex

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// ZstSuffix ends the name of a rollout compressed with zstd (FORMATS.md
// §2.1), which grove lists and does not read.
const ZstSuffix = ".jsonl.zst"

// Agent is the Codex CLI. The zero value reads no lines: use New.
type Agent struct{ jsonl.Rules }

// New is Codex's agent, its lines read as jsonl/dialect_codex.go says.
func New() Agent { return Agent{jsonl.RulesOf(jsonl.Codex)} }

// Name is "Codex".
func (Agent) Name() string { return "Codex" }

// Traits: one chain, its reader pairs events with the lines of their turn,
// a copy keeps its payload within a family of forks, the context is the
// API's items.
func (Agent) Traits() kit.Traits {
	return kit.Traits{ActiveLeaf: kit.LastEntry, Copies: kit.SamePayload, Chain: true, TurnStarts: jsonl.CodexTurnStarts,
		Form: kit.APIMessages, ModifiedByEntryTime: true}
}

// Roots: $CODEX_HOME (else ~/.codex) sessions and archived_sessions
// (FORMATS.md §2.1).
func (Agent) Roots(home string, getenv func(string) string) []string {
	codex := getenv("CODEX_HOME")
	if codex == "" {
		codex = filepath.Join(home, ".codex")
	}
	return []string{filepath.Join(codex, "sessions"), filepath.Join(codex, "archived_sessions")}
}

// RootsDoc names Roots.
func (Agent) RootsDoc() kit.RootsDoc {
	return kit.RootsDoc{Help: "Codex ($CODEX_HOME/sessions and $CODEX_HOME/archived_sessions, else the same under ~/.codex)",
		Hint: "$CODEX_HOME/sessions and $CODEX_HOME/archived_sessions (else under ~/.codex)"}
}

// Claims no file by where it is beyond jsonl.DialectAt's rule (a
// rollout-*.jsonl name).
func (Agent) Claims(string, func(string) string) bool { return false }

// SessionFile: in a Codex home (a directory holding sessions/ or
// archived_sessions/), history.jsonl (typed prompts) and
// session_index.jsonl (thread names) are no sessions; a *.jsonl.zst is a
// compressed rollout, unless a plain .jsonl sibling is there, which wins
// (FORMATS.md §2.1).
func (Agent) SessionFile(dir, name string) kit.FileKind {
	switch {
	case name == "history.jsonl" || name == "session_index.jsonl":
		if isDir(filepath.Join(dir, "sessions")) || isDir(filepath.Join(dir, "archived_sessions")) {
			return kit.Skipped
		}
	case strings.HasSuffix(name, ZstSuffix):
		if _, err := os.Lstat(filepath.Join(dir, strings.TrimSuffix(name, ".zst"))); err == nil {
			return kit.Skipped
		}
		return kit.Compressed
	}
	return kit.NotMine
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// uuidTail matches a UUID at the end of a rollout's file stem.
var uuidTail = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// rolloutID is the uuid that ends a rollout's file name
// (rollout-<local time>-<uuid>), as a compressed rollout's id.
var rolloutID = regexp.MustCompile(`-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`)

// SessionID is the header's payload.id, else the UUID at the end of the
// file name, else the name without .jsonl (SPEC §3.5, FORMATS.md §2.3).
// A compressed rollout (*.jsonl.zst), which grove cannot open, is named
// by the uuid after the last "-" of its name, else by its name without
// .jsonl.zst.
func (Agent) SessionID(path string, h *jsonl.Header) string {
	if h != nil && h.ID != "" {
		return h.ID
	}
	base := filepath.Base(path)
	if stem, ok := strings.CutSuffix(base, ZstSuffix); ok {
		if m := rolloutID.FindStringSubmatch(stem); m != nil {
			return m[1]
		}
		return stem
	}
	stem := strings.TrimSuffix(base, ".jsonl")
	if u := uuidTail.FindString(stem); u != "" {
		return u
	}
	return stem
}

// Workspace is the header's cwd (SPEC §3.5); a read that found no header
// keeps prev, the workspace of the read before it (a later turn_context's
// cwd never moves it); a rollout with no session_meta, or one without a
// cwd, takes its first turn_context's cwd (FORMATS.md §2.3), else none.
func (Agent) Workspace(prev, _ string, h *jsonl.Header, f *kit.Facts) string {
	switch {
	case h != nil && h.Cwd != "":
		return h.Cwd
	case prev != "":
		return prev
	case f != nil:
		return f.FirstCwd
	}
	return ""
}

// MetaFacts: the header says it all (its parent: forked_from_id or the
// spawning thread).
func (Agent) MetaFacts(string, *kit.Identity, *jsonl.Result, func(string) (bool, error), func() (*jsonl.Result, error)) error {
	return nil
}

// FallbackName: none.
func (Agent) FallbackName(string) string { return "" }

// ChildKind: a sub-agent's or a fork's rollout is a "child".
func (Agent) ChildKind(string) string { return "child" }

// Activity is the line's own time.
func (Agent) Activity(e *jsonl.Entry) (int64, bool) { return e.Timestamp, e.HasTime }

// Preview: see preview.go.
func (Agent) Preview(raw []byte) string { return Preview(raw) }

// ContextLine: the lines Context replays.
func (Agent) ContextLine(typ, role string) bool {
	return typ == "response_item" || typ == "compacted" || typ == "turn_context" ||
		typ == "event_msg" && role == "thread_rolled_back"
}

// Context is Codex's rebuild (context.go), with the header in.Header
// gives.
func (Agent) Context(in kit.ContextInput) (*kit.Context, error) {
	var header []byte
	if len(in.Path) > 0 && in.Header != nil {
		h, err := in.Header()
		if err != nil {
			return nil, err
		}
		header = h
	}
	return Context(in.Path, header)
}

// ContextHeader: the session_meta line (the legacy header has no
// model_provider to give).
func (Agent) ContextHeader(line []byte) bool {
	return kit.JSString(jsonl.Field(line, "type")) == "session_meta"
}

// ContextStart: the newest compacted line with a replacement_history
// replaces all history before it: its index (FORMATS.md §2.5). A
// compacted line without one keeps the user messages before it, so it
// marks no start; nor does a rollback (thread_rolled_back) undo one. It
// reads no line but the compacted ones.
func (Agent) ContextStart(ctx context.Context, path []jsonl.Entry, line func(int) ([]byte, error)) (int, error) {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type != "compacted" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return -1, err
		}
		raw, err := line(i)
		if err != nil {
			return -1, err
		}
		if rh := jsonl.Field(jsonl.Field(raw, "payload"), "replacement_history"); rh != nil && string(rh) != "null" {
			return kit.StartOrNone(i), nil
		}
	}
	return -1, nil
}

// ForLLM is a copy of c: its items already are what the model received.
func (Agent) ForLLM(c *kit.Context) *kit.Context { out := *c; return &out }
