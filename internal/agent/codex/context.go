package codex

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// histItem is one item of the history Codex rebuilds, the entry it came
// from, and whether it is the summary of a compaction grove rebuilt (which
// a later rebuild does not count as a user message, as Codex's
// is_summary_message does not).
type histItem struct {
	raw     json.RawMessage
	id      string
	summary bool
}

// Context is the history Codex rebuilds from a rollout when it resumes
// (SPEC §3.5, FORMATS.md §2.5, codex-rs rollout_reconstruction.rs), over
// path, the chain of entries up to the leaf, root first, each with Raw;
// header is the session_meta line (nil when there is none).
//
// Replayed forward, which is what Codex's backward scan for the newest
// replacement_history amounts to:
//   - a response_item's payload (a legacy bare item: the line) is appended,
//     except what Codex never sends: a message of role "system", a
//     ghost_snapshot, a compaction_trigger. Item types grove does not know
//     are appended (a newer Codex sends them). Payloads are as stored:
//     Codex's truncation of long tool outputs is not applied.
//   - compacted with a replacement_history: the history becomes its items,
//     each kept under the compacted entry's id.
//   - compacted without one: the history becomes the user messages so far
//     (each as {type:"message", role:"user", content:[{type:"input_text",
//     text}]}, text its input_text pieces joined, under the id of the entry
//     it came from; injected context and earlier summaries left out), then
//     its message the same way ("(no summary available)" when empty) under
//     the compacted entry's id. Codex's own initial context (instructions,
//     environment) is not in the file and is not made up; nor is the 20,000
//     token cap on the user messages applied.
//   - event_msg thread_rolled_back {num_turns: N}: the last N user turns are
//     dropped (all of them, keeping what came before the first, when N is
//     more); a user turn starts at a user message that is not injected
//     context (<environment_context>, AGENTS.md and other tagged fragments);
//     injected context just before the cut goes with it.
//   - event_msg and turn_context lines never enter the history.
//
// thinkingLevel is the last turn_context's effort (Codex's reasoning effort:
// minimal, low, medium, high, xhigh), "off" when it has none; model is
// {provider: the header's model_provider, modelId: the last turn_context's
// model}, nil when no turn_context names one.
//
// Errors: bad_line for a line the replay reads that is not a JSON object.
func Context(path []jsonl.Entry, header json.RawMessage) (*kit.Context, error) {
	c := kit.EmptyContext(jsonl.Codex)
	var hist []histItem
	var modelID json.RawMessage
	for i := range path {
		e := &path[i]
		switch {
		case e.Type == "response_item", e.Type == "compacted", e.Type == "turn_context",
			e.Type == "event_msg" && e.Role == "thread_rolled_back":
		default:
			continue
		}
		if _, ok := kit.ObjectFields(e.Raw); !ok {
			return nil, errs.New(errs.CodeBadLine, e.Type+" line is not a JSON object").At(e.Line, e.Offset)
		}
		p := jsonl.Field(e.Raw, "payload")
		switch e.Type {
		case "response_item":
			p = jsonl.RulesOf(jsonl.Codex).Message(e.Type, e.Raw)
			if sent(p) {
				hist = append(hist, histItem{raw: p, id: e.ID})
			}
		case "compacted":
			if rh := jsonl.Field(p, "replacement_history"); rh != nil && string(rh) != "null" {
				var next []histItem
				jsonl.Elements(rh, func(b []byte) { next = append(next, histItem{raw: b, id: e.ID}) })
				hist = next
			} else {
				hist = rebuild(hist, jsonl.Field(p, "message"), e.ID)
			}
		case "event_msg":
			hist = dropTurns(hist, count(jsonl.Field(p, "num_turns")))
		case "turn_context":
			if m := jsonl.Field(p, "model"); len(m) > 0 && m[0] == '"' {
				modelID = m
			}
			c.ThinkingLevel = json.RawMessage(`"off"`)
			if eff := jsonl.Field(p, "effort"); len(eff) > 0 && eff[0] == '"' {
				c.ThinkingLevel = eff
			}
		}
	}
	for _, it := range hist {
		c.Messages = append(c.Messages, it.raw)
		c.KeptEntryIDs = append(c.KeptEntryIDs, it.id)
	}
	if modelID != nil {
		var provider json.RawMessage
		if v := jsonl.Field(jsonl.Field(header, "payload"), "model_provider"); len(v) > 0 && v[0] == '"' {
			provider = v
		}
		c.Model = &kit.Model{Provider: provider, ModelID: modelID}
	}
	return c, nil
}

// sent reports whether Codex records the response item p in the
// history it sends (its is_api_message, for the types grove knows).
func sent(p json.RawMessage) bool {
	switch kit.JSString(jsonl.Field(p, "type")) {
	case "ghost_snapshot", "compaction_trigger":
		return false
	case "message":
		return kit.JSString(jsonl.Field(p, "role")) != "system"
	}
	return p != nil
}

// count is a JSON number of turns as a count: 0 for anything that is
// not a non-negative number.
func count(v json.RawMessage) int {
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
	if err != nil || f < 0 || math.IsNaN(f) {
		return 0
	}
	if f > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(f)
}

// userTurn reports whether item p starts a user turn: a user message
// that is not injected context (Codex's is_user_turn_boundary).
func userTurn(p json.RawMessage) bool {
	return isMessage(p, "user") && !hasPrefix(p, userContext)
}

// preTurnContext reports whether item p is context Codex injects
// before a turn, which a rollback trims with the turn after it
// (trim_pre_turn_context_updates).
func preTurnContext(p json.RawMessage) bool {
	return isMessage(p, "user") && hasPrefix(p, userContext) ||
		isMessage(p, "developer") && hasPrefix(p, developerContext)
}

// The openings of the text fragments Codex injects as user and developer
// messages (codex-rs contextual_user_message.rs, event_mapping.rs), compared
// without ASCII case after leading white space.
var (
	userContext = []string{"# AGENTS.md instructions for ", "<environment_context>", "<user_instructions>",
		"<skill>", "<user_shell_command>", "<turn_aborted>", "<subagent_notification>"}
	developerContext = []string{"<permissions instructions>", "<model_switch>", "<collaboration_mode>",
		"<personality_spec>"}
)

func isMessage(p json.RawMessage, role string) bool {
	return kit.JSString(jsonl.Field(p, "type")) == "message" && kit.JSString(jsonl.Field(p, "role")) == role
}

// hasPrefix reports whether an input_text piece of message p opens
// with one of prefixes.
func hasPrefix(p json.RawMessage, prefixes []string) bool {
	found := false
	jsonl.Elements(jsonl.Field(p, "content"), func(b []byte) {
		if found || kit.JSString(jsonl.Field(b, "type")) != "input_text" {
			return
		}
		t := strings.TrimLeft(kit.JSString(jsonl.Field(b, "text")), " \t\r\n")
		for _, pre := range prefixes {
			if len(t) >= len(pre) && strings.EqualFold(t[:len(pre)], pre) {
				found = true
			}
		}
	})
	return found
}

// rebuild is the history after a compaction without a
// replacement_history: the user messages of hist, then message.
func rebuild(hist []histItem, message json.RawMessage, id string) []histItem {
	var out []histItem
	for _, it := range hist {
		if it.summary || !userTurn(it.raw) {
			continue
		}
		var text strings.Builder
		jsonl.Elements(jsonl.Field(it.raw, "content"), func(b []byte) {
			if kit.JSString(jsonl.Field(b, "type")) == "input_text" {
				text.WriteString(kit.JSString(jsonl.Field(b, "text")))
			}
		})
		if text.Len() > 0 {
			out = append(out, histItem{raw: userMessage(text.String()), id: it.id})
		}
	}
	summary := ""
	if len(message) > 0 && message[0] == '"' {
		summary = kit.JSString(message)
	}
	if summary == "" {
		summary = "(no summary available)"
	}
	return append(out, histItem{raw: userMessage(summary), id: id, summary: true})
}

// userMessage is a user message item of one input_text, in the key
// order Codex serialises it.
func userMessage(text string) json.RawMessage {
	return kit.MarshalOrdered("type", json.RawMessage(`"message"`), "role", json.RawMessage(`"user"`),
		"content", kit.Wrap(kit.MarshalOrdered("type", json.RawMessage(`"input_text"`), "text", kit.JSONString(text))))
}

// dropTurns is hist without its last n user turns (Codex's
// drop_last_n_user_turns).
func dropTurns(hist []histItem, n int) []histItem {
	if n <= 0 {
		return hist
	}
	var turns []int
	for i := range hist {
		if userTurn(hist[i].raw) {
			turns = append(turns, i)
		}
	}
	if len(turns) == 0 {
		return hist
	}
	cut := turns[0]
	if n < len(turns) {
		cut = turns[len(turns)-n]
	}
	for cut > turns[0] && preTurnContext(hist[cut-1].raw) {
		cut--
	}
	return hist[:cut:cut]
}
