package archive

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// codexHistItem is one item of the history Codex rebuilds, the entry it came
// from, and whether it is the summary of a compaction grove rebuilt (which
// a later rebuild does not count as a user message, as Codex's
// is_summary_message does not).
type codexHistItem struct {
	raw     json.RawMessage
	id      string
	summary bool
}

// CodexContext is the history Codex rebuilds from a rollout when it resumes
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
func CodexContext(path []FileEntry, header json.RawMessage) (*Context, error) {
	c := emptyContext(jsonl.Codex)
	var hist []codexHistItem
	var modelID json.RawMessage
	for i := range path {
		e := &path[i]
		switch {
		case e.Type == "response_item", e.Type == "compacted", e.Type == "turn_context",
			e.Type == "event_msg" && e.Role == "thread_rolled_back":
		default:
			continue
		}
		if _, ok := objectFields(e.Raw); !ok {
			return nil, errs.New(errs.CodeBadLine, e.Type+" line is not a JSON object").At(e.Line, e.Offset)
		}
		p := jsonl.Field(e.Raw, "payload")
		switch e.Type {
		case "response_item":
			p = jsonl.RulesOf(jsonl.Codex).Message(e.Type, e.Raw)
			if codexSent(p) {
				hist = append(hist, codexHistItem{raw: p, id: e.ID})
			}
		case "compacted":
			if rh := jsonl.Field(p, "replacement_history"); rh != nil && string(rh) != "null" {
				var next []codexHistItem
				jsonl.Elements(rh, func(b []byte) { next = append(next, codexHistItem{raw: b, id: e.ID}) })
				hist = next
			} else {
				hist = codexRebuild(hist, jsonl.Field(p, "message"), e.ID)
			}
		case "event_msg":
			hist = codexDropTurns(hist, codexCount(jsonl.Field(p, "num_turns")))
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
		c.Model = &Model{Provider: provider, ModelID: modelID}
	}
	return c, nil
}

// codexSent reports whether Codex records the response item p in the
// history it sends (its is_api_message, for the types grove knows).
func codexSent(p json.RawMessage) bool {
	switch jsString(jsonl.Field(p, "type")) {
	case "ghost_snapshot", "compaction_trigger":
		return false
	case "message":
		return jsString(jsonl.Field(p, "role")) != "system"
	}
	return p != nil
}

// codexCount is a JSON number of turns as a count: 0 for anything that is
// not a non-negative number.
func codexCount(v json.RawMessage) int {
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
	if err != nil || f < 0 || math.IsNaN(f) {
		return 0
	}
	if f > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(f)
}

// codexUserTurn reports whether item p starts a user turn: a user message
// that is not injected context (Codex's is_user_turn_boundary).
func codexUserTurn(p json.RawMessage) bool {
	return codexIsMessage(p, "user") && !codexHasPrefix(p, codexUserContext)
}

// codexPreTurnContext reports whether item p is context Codex injects
// before a turn, which a rollback trims with the turn after it
// (trim_pre_turn_context_updates).
func codexPreTurnContext(p json.RawMessage) bool {
	return codexIsMessage(p, "user") && codexHasPrefix(p, codexUserContext) ||
		codexIsMessage(p, "developer") && codexHasPrefix(p, codexDeveloperContext)
}

// The openings of the text fragments Codex injects as user and developer
// messages (codex-rs contextual_user_message.rs, event_mapping.rs), compared
// without ASCII case after leading white space.
var (
	codexUserContext = []string{"# AGENTS.md instructions for ", "<environment_context>", "<user_instructions>",
		"<skill>", "<user_shell_command>", "<turn_aborted>", "<subagent_notification>"}
	codexDeveloperContext = []string{"<permissions instructions>", "<model_switch>", "<collaboration_mode>",
		"<personality_spec>"}
)

func codexIsMessage(p json.RawMessage, role string) bool {
	return jsString(jsonl.Field(p, "type")) == "message" && jsString(jsonl.Field(p, "role")) == role
}

// codexHasPrefix reports whether an input_text piece of message p opens
// with one of prefixes.
func codexHasPrefix(p json.RawMessage, prefixes []string) bool {
	found := false
	jsonl.Elements(jsonl.Field(p, "content"), func(b []byte) {
		if found || jsString(jsonl.Field(b, "type")) != "input_text" {
			return
		}
		t := strings.TrimLeft(jsString(jsonl.Field(b, "text")), " \t\r\n")
		for _, pre := range prefixes {
			if len(t) >= len(pre) && strings.EqualFold(t[:len(pre)], pre) {
				found = true
			}
		}
	})
	return found
}

// codexRebuild is the history after a compaction without a
// replacement_history: the user messages of hist, then message.
func codexRebuild(hist []codexHistItem, message json.RawMessage, id string) []codexHistItem {
	var out []codexHistItem
	for _, it := range hist {
		if it.summary || !codexUserTurn(it.raw) {
			continue
		}
		var text strings.Builder
		jsonl.Elements(jsonl.Field(it.raw, "content"), func(b []byte) {
			if jsString(jsonl.Field(b, "type")) == "input_text" {
				text.WriteString(jsString(jsonl.Field(b, "text")))
			}
		})
		if text.Len() > 0 {
			out = append(out, codexHistItem{raw: codexUserMessage(text.String()), id: it.id})
		}
	}
	summary := ""
	if len(message) > 0 && message[0] == '"' {
		summary = jsString(message)
	}
	if summary == "" {
		summary = "(no summary available)"
	}
	return append(out, codexHistItem{raw: codexUserMessage(summary), id: id, summary: true})
}

// codexUserMessage is a user message item of one input_text, in the key
// order Codex serialises it.
func codexUserMessage(text string) json.RawMessage {
	return marshalOrdered("type", json.RawMessage(`"message"`), "role", json.RawMessage(`"user"`),
		"content", wrap(marshalOrdered("type", json.RawMessage(`"input_text"`), "text", jsonText(text))))
}

// codexDropTurns is hist without its last n user turns (Codex's
// drop_last_n_user_turns).
func codexDropTurns(hist []codexHistItem, n int) []codexHistItem {
	if n <= 0 {
		return hist
	}
	var turns []int
	for i := range hist {
		if codexUserTurn(hist[i].raw) {
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
	for cut > turns[0] && codexPreTurnContext(hist[cut-1].raw) {
		cut--
	}
	return hist[:cut:cut]
}
