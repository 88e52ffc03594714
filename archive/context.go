package archive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// ModelContext is what a model receives at a leaf (SPEC §4.1, pi's
// buildSessionContext): the messages, the entry each came from, the thinking
// level and the model.
type ModelContext struct {
	// Messages are JSON objects: a `message` entry's message byte for byte
	// as stored, or a message made from a compaction, branch_summary or
	// custom_message entry (keys in pi's order; a field the entry lacks is
	// left out, as JavaScript's JSON.stringify leaves out undefined).
	Messages []json.RawMessage
	// KeptEntryIDs[i] is the id of the entry Messages[i] came from (the
	// compaction's own id for its summary).
	KeptEntryIDs []string
	// ThinkingLevel is the JSON value of the last thinking_level_change on
	// the path, or "off".
	ThinkingLevel json.RawMessage
	// Model is the last model_change or assistant message on the path, or
	// nil when there is none.
	Model *Model
	// Version is the session's pi version (0 for plain), for ForLLM: before
	// version 3 the custom role was spelled hookMessage. BuildContext leaves
	// it 0; callers that know it set it.
	Version int
	// Dialect is the session's dialect; "" (as BuildContext leaves it) is
	// pi's rules. ForLLM leaves the messages of messages, claude and codex
	// as they are: they already are what the model received.
	Dialect jsonl.Dialect
}

// Model is a model as pi tracks it along a path: provider and modelId as
// the entry wrote them (an assistant message's "model" is its modelId).
type Model struct {
	Provider json.RawMessage `json:"provider,omitempty"`
	ModelID  json.RawMessage `json:"modelId,omitempty"`
}

// contextTypes are the entry types BuildContext reads the line of; every
// other type (label, session_info, custom, unknown types) gives no message
// and changes no setting, so its line need not be read.
var contextTypes = map[string]bool{
	"message": true, "thinking_level_change": true, "model_change": true,
	"compaction": true, "custom_message": true, "branch_summary": true,
}

// BuildContext is SPEC §4.1 over path: the entries from a root to the leaf,
// root first, as PathTo returns them. Raw is needed for the types in
// contextTypes (the others may have a nil Raw); a compaction's FirstKept is
// its firstKeptEntryId as the reader resolved it (pi version 1: from
// firstKeptEntryIndex, §3.2).
//
// The rules, pi's:
//   - thinkingLevel starts "off"; every thinking_level_change overrides it.
//     model starts nil; a model_change sets {provider, modelId}, an
//     assistant message {provider, model}; the later one wins.
//   - The last compaction on the path comes first as {role:
//     "compactionSummary", summary, tokensBefore, timestamp}, then the
//     entries from its firstKeptEntryId (when it has one and that entry is
//     on the path before it; otherwise none, SPEC §3.2) up to it, then
//     every entry after it.
//   - message → its message as stored; custom_message → {role: "custom",
//     customType, content, display, details, timestamp}; branch_summary with
//     a summary (JavaScript-truthy) → {role: "branchSummary", summary,
//     fromId, timestamp}; nothing else gives a message. Timestamps of made
//     messages are the entry's time in Unix milliseconds (null when it has
//     none).
//
// The plain dialect has no compaction, so its context is MessagesOnPath.
// The only error is bad_line for a line that is not a JSON object, or a
// message entry without a message object (neither passes the reader).
func BuildContext(path []jsonl.Entry) (*ModelContext, error) {
	c := &ModelContext{ThinkingLevel: json.RawMessage(`"off"`), Messages: []json.RawMessage{}, KeptEntryIDs: []string{}}
	fields := make([]map[string]json.RawMessage, len(path))
	compaction := -1
	for i := range path {
		e := &path[i]
		if !contextTypes[e.Type] {
			continue
		}
		o, ok := objectFields(e.Raw)
		if !ok {
			return nil, errs.New(errs.CodeBadLine, e.Type+" entry is not a JSON object").At(e.Line, e.Offset)
		}
		fields[i] = o
		switch e.Type {
		case "thinking_level_change":
			c.ThinkingLevel = orNull(o["thinkingLevel"])
		case "model_change":
			c.Model = &Model{Provider: o["provider"], ModelID: o["modelId"]}
		case "message":
			m, ok := objectFields(o["message"])
			if !ok {
				return nil, errs.New(errs.CodeBadLine, "message entry without a message object").At(e.Line, e.Offset)
			}
			if jsString(m["role"]) == "assistant" {
				c.Model = &Model{Provider: m["provider"], ModelID: m["model"]}
			}
		case "compaction":
			compaction = i
		}
	}
	add := func(i int) {
		if m := contextMessage(&path[i], fields[i]); m != nil {
			c.Messages = append(c.Messages, m)
			c.KeptEntryIDs = append(c.KeptEntryIDs, path[i].ID)
		}
	}
	if compaction < 0 {
		for i := range path {
			add(i)
		}
		return c, nil
	}
	cp := &path[compaction]
	o := fields[compaction]
	c.Messages = append(c.Messages, marshalOrdered(
		"role", json.RawMessage(`"compactionSummary"`), "summary", o["summary"],
		"tokensBefore", o["tokensBefore"], "timestamp", entryMs(cp)))
	c.KeptEntryIDs = append(c.KeptEntryIDs, cp.ID)
	kept := false
	for i := 0; i < compaction; i++ {
		if path[i].ID == cp.FirstKept {
			kept = true
		}
		if kept {
			add(i)
		}
	}
	for i := compaction + 1; i < len(path); i++ {
		add(i)
	}
	return c, nil
}

// contextMessage is the message entry e gives in a context (SPEC §4.1), or
// nil; o is e's line decoded one level deep (nil for types that give none).
func contextMessage(e *jsonl.Entry, o map[string]json.RawMessage) json.RawMessage {
	switch e.Type {
	case "message":
		return o["message"]
	case "custom_message":
		return marshalOrdered("role", json.RawMessage(`"custom"`), "customType", o["customType"],
			"content", o["content"], "display", o["display"], "details", o["details"], "timestamp", entryMs(e))
	case "branch_summary":
		if !truthy(o["summary"]) {
			return nil
		}
		return marshalOrdered("role", json.RawMessage(`"branchSummary"`), "summary", o["summary"],
			"fromId", o["fromId"], "timestamp", entryMs(e))
	}
	return nil
}

// entryMs is e's time in Unix milliseconds as JSON, or null when it has
// none (JavaScript's new Date(undefined).getTime() is NaN, which
// JSON.stringify writes as null).
func entryMs(e *jsonl.Entry) json.RawMessage {
	if !e.HasTime {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(e.Timestamp)
	return b
}

// marshalOrdered writes a JSON object of the key/value pairs kv (string,
// json.RawMessage, ...) in that order, leaving out keys whose value is nil
// (JavaScript's undefined). Values are compacted; strings keep <, > and &
// unescaped.
func marshalOrdered(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := kv[i+1].(json.RawMessage)
		if v == nil {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(jsonText(kv[i].(string)))
		b.WriteByte(':')
		if json.Compact(&b, v) != nil {
			b.WriteString("null")
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonText is s as a JSON string, with <, > and & left as they are.
func jsonText(s string) json.RawMessage { return json.RawMessage(JSONText(s)) }

// orNull is v, or JSON null when v is missing.
func orNull(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

// objectFields decodes the JSON object raw one level deep, as json.Unmarshal
// into a map[string]json.RawMessage does (of a key given twice the last
// wins), but each value is a sub-slice of raw rather than a copy, so a
// 50 MB image in a line is not held twice (SPEC §2.8). ok is false when raw
// is not one valid JSON object (JSON null included).
func objectFields(raw []byte) (map[string]json.RawMessage, bool) {
	m := map[string]json.RawMessage{}
	if !jsonl.Members(raw, func(k string, v []byte) bool { m[k] = v; return true }) {
		return nil, false
	}
	return m, true
}

// AgentContext is the model context at the end of path for a dialect that
// is not pi's (SPEC §3.4–3.6, FORMATS.md §1.9, §2.5, §3.2): path is the
// entries from a root to the leaf, root first, as PathTo returns them, each
// with its Raw line. For pi and plain it is BuildContext(path).
//
//   - messages: every entry's line as stored; keptEntryIds the L<line> ids;
//     thinkingLevel "off", model null (the log records neither).
//   - claude: the message of each user and assistant entry on the path (after
//     a compaction the path starts at its compact_boundary root), and for a
//     tool_use block on the path whose tool_result is on no path entry, the
//     child of the tool_use line that holds that tool_result, right after the
//     tool_use line (parallel tool calls, FORMATS.md §1.9); one line answering
//     several calls is taken once, and a child whose line is not what it
//     should be is passed over, as a broken branch elsewhere never stops a
//     path (SPEC §4). children(id) gives the children of entry id in file
//     order, with Raw for user entries (a nil children: none). The model
//     is {provider:"anthropic", modelId: the model of the last assistant
//     message on the path} ("<synthetic>", Claude Code's own notices, is no
//     model); thinkingLevel "off", as Claude Code's lines record no thinking
//     setting.
//   - codex: CodexContext(path, header).
//
// Errors: bad_line for a line the rules need that is not a JSON object (the
// reader lets none through).
func AgentContext(d jsonl.Dialect, path []jsonl.Entry, children func(id string) []jsonl.Entry, header json.RawMessage) (*ModelContext, error) {
	switch d {
	case jsonl.Messages:
		c := emptyContext(d)
		for i := range path {
			c.Messages = append(c.Messages, jsonl.RulesOf(d).Message(path[i].Type, path[i].Raw))
			c.KeptEntryIDs = append(c.KeptEntryIDs, path[i].ID)
		}
		return c, nil
	case jsonl.Claude:
		return claudeContext(path, children)
	case jsonl.Codex:
		return CodexContext(path, header)
	}
	return BuildContext(path)
}

// emptyContext is a context without messages for dialect d.
func emptyContext(d jsonl.Dialect) *ModelContext {
	return &ModelContext{Dialect: d, ThinkingLevel: json.RawMessage(`"off"`), Messages: []json.RawMessage{}, KeptEntryIDs: []string{}}
}

// claudeContext is AgentContext for the claude dialect.
func claudeContext(path []jsonl.Entry, children func(id string) []jsonl.Entry) (*ModelContext, error) {
	c := emptyContext(jsonl.Claude)
	msgs := make([]*claudeMsg, len(path))
	answered := map[string]bool{} // tool_use ids with a tool_result on the path
	for i := range path {
		e := &path[i]
		if e.Type != "user" && e.Type != "assistant" {
			continue
		}
		m, err := readClaudeMessage(e)
		if err != nil {
			return nil, err
		}
		msgs[i] = m
		for _, id := range m.results {
			answered[id] = true
		}
		if e.Type == "assistant" && len(m.model) > 0 && m.model[0] == '"' && jsString(m.model) != "<synthetic>" {
			c.Model = &Model{Provider: json.RawMessage(`"anthropic"`), ModelID: m.model}
		}
	}
	for i, m := range msgs {
		if m == nil {
			continue
		}
		c.Messages = append(c.Messages, m.raw)
		c.KeptEntryIDs = append(c.KeptEntryIDs, path[i].ID)
		if path[i].Type != "assistant" || children == nil {
			continue
		}
		for _, id := range m.uses {
			if answered[id] {
				continue
			}
			for _, k := range children(path[i].ID) {
				if k.Type != "user" {
					continue
				}
				// A child off the path that is not what it should be holds no
				// result: it does not stop the path (SPEC §4).
				r, err := readClaudeMessage(&k)
				if err != nil || !slices.Contains(r.results, id) {
					continue
				}
				c.Messages = append(c.Messages, r.raw)
				c.KeptEntryIDs = append(c.KeptEntryIDs, k.ID)
				for _, id := range r.results { // one line answering two calls is taken once
					answered[id] = true
				}
				break
			}
		}
	}
	return c, nil
}

// claudeMsg is what claudeContext reads of a Claude user or assistant
// entry: its message as stored (a sub-slice of the line), the message's
// model, and the ids of its tool_use blocks and of the calls its
// tool_result blocks answer, in order (a string content has none).
type claudeMsg struct {
	raw, model    json.RawMessage
	uses, results []string
}

// readClaudeMessage reads the message of the Claude entry e, going over
// the line once, the message once more and its content twice (a 50 MB
// image is never copied nor decoded, SPEC §2.8).
func readClaudeMessage(e *jsonl.Entry) (*claudeMsg, error) {
	o, ok := objectFields(e.Raw)
	if !ok {
		return nil, errs.New(errs.CodeBadLine, e.Type+" entry is not a JSON object").At(e.Line, e.Offset)
	}
	raw := o["message"]
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errs.New(errs.CodeBadLine, e.Type+" entry without a message object").At(e.Line, e.Offset)
	}
	mf, _ := objectFields(raw)
	m := &claudeMsg{raw: raw, model: mf["model"]}
	content := mf["content"]
	if len(content) == 0 || content[0] != '[' {
		return m, nil
	}
	var blocks []struct {
		Type      any `json:"type"`
		ID        any `json:"id"`
		ToolUseID any `json:"tool_use_id"`
	}
	_ = json.Unmarshal(content, &blocks) // a block that is no object gives nothing
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			if id, ok := b.ID.(string); ok {
				m.uses = append(m.uses, id)
			}
		case "tool_result":
			if id, ok := b.ToolUseID.(string); ok {
				m.results = append(m.results, id)
			}
		}
	}
	return m, nil
}

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
func CodexContext(path []jsonl.Entry, header json.RawMessage) (*ModelContext, error) {
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

// contextLine reports whether the context rules of dialect d read the line
// of an entry of type typ and role role (AgentContext, BuildContext).
func contextLine(d jsonl.Dialect, typ, role string) bool {
	switch d {
	case jsonl.Messages:
		return true
	case jsonl.Claude:
		return typ == "user" || typ == "assistant"
	case jsonl.Codex:
		return typ == "response_item" || typ == "compacted" || typ == "turn_context" ||
			typ == "event_msg" && role == "thread_rolled_back"
	}
	return contextTypes[typ]
}

// SessionContext is the model context at leaf ("" for the active leaf) of
// the session s read whole, in its dialect: PathTo, then BuildContext (pi,
// plain; Version set from the header) or AgentContext, the children of an
// entry taken from s.Entries and the codex header from s.Header (else read
// from the file before the first entry). It is the pure side that
// Archive.ContextOf must agree with. Errors: those of PathTo, of the rules,
// and of reading the file for the header.
func SessionContext(s *Session, leaf string) (*ModelContext, error) {
	if leaf == "" {
		leaf = ActiveLeaf(s.Dialect, s.Entries)
	}
	if leaf == "" {
		c := emptyContext(s.Dialect)
		return c, nil
	}
	path, err := PathTo(s.Entries, leaf)
	if err != nil {
		return nil, err
	}
	switch s.Dialect {
	case jsonl.Messages, jsonl.Claude, jsonl.Codex:
	default:
		c, err := BuildContext(path)
		if err != nil {
			return nil, err
		}
		c.Dialect = s.Dialect
		if s.Header != nil {
			c.Version = s.Header.Version
		}
		return c, nil
	}
	kids := map[string][]jsonl.Entry{}
	for _, e := range s.Entries {
		if !e.Root {
			kids[e.ParentID] = append(kids[e.ParentID], e)
		}
	}
	var header json.RawMessage
	if s.Dialect == jsonl.Codex {
		if s.Header != nil && s.Header.Raw != nil {
			header = s.Header.Raw
		} else if header, err = codexHeader(s.Path, path[0].Offset); err != nil {
			return nil, err
		}
	}
	return AgentContext(s.Dialect, path, func(id string) []jsonl.Entry { return kids[id] }, header)
}

// ContextOf answers `grove context` in the session's dialect (SPEC §4.1,
// §3.4–3.6): Context for pi and plain; for messages, claude and codex the
// path by CTE, the lines AgentContext reads checked against their CRC-32,
// and for claude the lines of off-path children of a tool_use line read
// only when a tool_use on the path lacks its result (the index's entries of
// the session, then the lines of those children). A session without entries
// has the empty context. Errors: those of Context.
func (a *Archive) ContextOf(ctx context.Context, session, leaf string) (*PathResult, *ModelContext, error) {
	s, err := a.Resolve(ctx, session)
	if err != nil {
		return nil, nil, err
	}
	d := jsonl.Dialect(s.Dialect)
	switch d {
	case jsonl.Messages, jsonl.Claude, jsonl.Codex:
	default:
		p, c, err := a.Context(ctx, session, leaf)
		if c != nil {
			c.Dialect = d
		}
		return p, c, err
	}
	if leaf == "" && s.ActiveLeaf == nil {
		if err := Fresh(s); err != nil {
			return nil, nil, err
		}
		return &PathResult{Session: s}, emptyContext(d), nil
	}
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, nil, err
	}
	path, err := readPath(p, func(e index.Entry) bool { return contextLine(d, e.Type, deref(e.Role)) })
	if err != nil {
		return nil, nil, err
	}
	var header json.RawMessage
	if d == jsonl.Codex && len(path) > 0 {
		if header, err = codexHeader(p.Session.Path, path[0].Offset); err != nil {
			return nil, nil, err
		}
	}
	kids := &indexChildren{a: a, ctx: ctx, p: p, path: path}
	c, err := AgentContext(d, path, kids.of, header)
	if err == nil {
		err = kids.err
	}
	if kids.f != nil {
		kids.f.Close()
	}
	if err != nil {
		var je *errs.Error
		if errors.As(err, &je) && je.Path == "" {
			je.Path = p.Session.Path
		}
		return nil, nil, err
	}
	return p, c, nil
}

// indexChildren gives AgentContext the children of an entry from the
// index, loaded at the first call (most paths never need them) and read
// back from the file; the first error is kept in err and ends the lookups.
type indexChildren struct {
	a    *Archive
	ctx  context.Context
	p    *PathResult
	path []jsonl.Entry
	kids map[string][]index.Entry // parent id -> children in file order
	read map[string][]jsonl.Entry // parent id -> children with their lines, as given
	f    *os.File
	err  error
}

func (k *indexChildren) of(id string) []jsonl.Entry {
	if k.err != nil {
		return nil
	}
	if k.kids == nil {
		rows, err := k.a.db.EntriesOf(k.ctx, k.p.Session.SID)
		if err != nil {
			k.err = err
			return nil
		}
		k.kids = map[string][]index.Entry{}
		for _, e := range rows {
			if e.ParentID != nil {
				k.kids[*e.ParentID] = append(k.kids[*e.ParentID], e)
			}
		}
		if k.f, err = os.Open(k.p.Session.Path); err != nil {
			k.err = errs.Wrap(errs.CodeStaleIndex, err, "cannot read the session file: "+errMsg(err)).In(k.p.Session.Path)
			return nil
		}
	}
	if out, ok := k.read[id]; ok {
		return out
	}
	var out []jsonl.Entry
	for _, e := range k.kids[id] {
		j := jsonlEntry(e)
		if contextLine(jsonl.Claude, e.Type, deref(e.Role)) {
			raw, err := ReadLine(k.f, k.p.Session.Path, e)
			if err != nil {
				k.err = err
				return nil
			}
			j.Raw = raw
		}
		out = append(out, j)
	}
	if k.read == nil {
		k.read = map[string][]jsonl.Entry{}
	}
	k.read[id] = out
	return out
}

// codexHeader is the first session_meta line of the codex file at path
// among the lines before byte end (the first entry's offset), nil when
// there is none (a legacy header has no model_provider to give).
func codexHeader(path string, end int64) (json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Wrap(errs.CodeStaleIndex, err, "cannot read the session file: "+errMsg(err)).In(path)
	}
	defer f.Close()
	r := bufio.NewReader(io.NewSectionReader(f, 0, end))
	for {
		line, err := r.ReadBytes('\n')
		line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
		if len(line) > 0 && jsString(jsonl.Field(line, "type")) == "session_meta" {
			return line, nil
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, errs.Wrap(errs.CodeStaleIndex, err, "cannot read the session file: "+errMsg(err)).In(path)
		}
	}
}
