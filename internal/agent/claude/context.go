package claude

import (
	"encoding/json"
	"slices"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// Context is the model context at the end of path (SPEC §3.4, FORMATS.md
// §1.4, §1.9): path is the entries from a root to the leaf, root first, as
// PathTo returns them, with Raw for user and assistant entries; children(id)
// gives the children of entry id in file order, with Raw for user and
// assistant entries (a nil children: none).
//
// Claude Code writes one API message (one message.id) as several lines,
// one content block a line, and hangs the result of each tool_use off its
// own line, so the pure path can miss parts of a message. The context is
// the message of each user and assistant entry on the path (after a
// compaction the path starts at its compact_boundary root), and, at the
// first assistant line of each message.id group on the path, the group's
// turn (see turnOf): every line of the group in file order, on the path
// or not, each followed right away by the line holding the tool_result of
// its tool_use blocks. A turn the path already holds whole, its lines
// before their results (2.0's tool_use lines, then their result lines),
// keeps the path's order. No entry, tool call or tool result is taken
// twice; a tool_use whose result the file does not hold (an interrupted
// turn) stays without one; a child whose line is not what it should be
// is passed over, as a broken branch elsewhere never stops a path
// (SPEC §4).
//
// The model is {provider: "anthropic", modelId: the model of the last
// assistant message on the path} ("<synthetic>", Claude Code's own
// notices, is no model); thinkingLevel "off", as Claude Code's lines
// record no thinking setting.
//
// Errors: bad_line for a user or assistant line on the path that is not a
// JSON object or has no message object (the reader lets none through).
func Context(path []jsonl.Entry, children func(id string) []jsonl.Entry) (*kit.Context, error) {
	c := kit.EmptyContext(jsonl.Claude)
	msgs := make([]*message, len(path))
	onPath := make(map[string]int, len(path))
	for i := range path {
		e := &path[i]
		onPath[e.ID] = i
		if e.Type != "user" && e.Type != "assistant" {
			continue
		}
		m, err := readMessage(e)
		if err != nil {
			return nil, err
		}
		msgs[i] = m
		if e.Type == "assistant" && len(m.model) > 0 && m.model[0] == '"' && kit.JSString(m.model) != "<synthetic>" {
			c.Model = &kit.Model{Provider: json.RawMessage(`"anthropic"`), ModelID: m.model}
		}
	}
	groups := map[string][]int{} // message.id -> its assistant lines on the path
	for i, m := range msgs {
		if m != nil && m.id != "" && path[i].Type == "assistant" {
			groups[m.id] = append(groups[m.id], i)
		}
	}
	b := &builder{c: c, done: map[string]bool{}, calls: map[string]bool{}, results: map[string]bool{}}
	turns := map[string]bool{} // message ids whose turn is placed
	for i, m := range msgs {
		if m == nil || b.done[path[i].ID] {
			continue
		}
		if path[i].Type == "assistant" && (m.id == "" || !turns[m.id]) {
			if m.id != "" {
				turns[m.id] = true
			}
			t := turnOf(path, msgs, groups[m.id], i, children)
			if !t.whole(msgs, onPath) {
				for _, g := range t.lines {
					b.add(g.e.ID, g.m)
					for _, id := range g.m.uses {
						if r := t.result[id]; r != nil && !b.done[r.e.ID] {
							b.add(r.e.ID, r.m)
						}
					}
				}
				continue
			}
		}
		b.add(path[i].ID, m)
	}
	return c, nil
}

// builder appends messages to a context, each entry once and each tool
// call and tool result once.
type builder struct {
	c              *kit.Context
	done           map[string]bool // entry ids taken
	calls, results map[string]bool // tool_use ids taken, as calls and as answers
}

// add appends the message m of entry id, unless the entry is taken or
// every tool call or result it holds is (a line repeating a block, such as
// a compaction replay): "no call or result twice" (SPEC §3.4).
func (b *builder) add(id string, m *message) {
	if b.done[id] {
		return
	}
	b.done[id] = true
	if len(m.uses)+len(m.results) > 0 && allIn(m.uses, b.calls) && allIn(m.results, b.results) {
		return
	}
	for _, u := range m.uses {
		b.calls[u] = true
	}
	for _, r := range m.results {
		b.results[r] = true
	}
	b.c.Messages = append(b.c.Messages, m.raw)
	b.c.KeptEntryIDs = append(b.c.KeptEntryIDs, id)
}

func allIn(ids []string, set map[string]bool) bool {
	for _, id := range ids {
		if !set[id] {
			return false
		}
	}
	return true
}

// line is an entry of a turn with its message.
type line struct {
	e *jsonl.Entry
	m *message
}

// turn is one API message of Claude Code as its lines lie in the file:
// the lines of its message.id group in file order, and for each of its
// tool_use ids the first line (in file order) holding its tool_result.
type turn struct {
	lines  []line
	result map[string]*line
}

// turnOf is the turn of the assistant line path[i] (message msgs[i];
// group: the path indexes of its message.id's lines), found by parentUuid
// from the group's lines on the path: Claude Code chains the
// lines of one API message one below the other and hangs each tool result
// below its tool_use line (FORMATS.md §1.4, §1.7), so the turn is the
// part of the tree below path[i] reached through lines of the same
// message.id, result lines (user lines holding a tool_result) and lines
// that are no message (progress, attachment, system), up to the next
// assistant message or user prompt. A line without a message.id is a
// group of its own.
func turnOf(path []jsonl.Entry, msgs []*message, group []int, i int, children func(string) []jsonl.Entry) *turn {
	m := msgs[i]
	t := &turn{result: map[string]*line{}}
	seen := map[string]bool{}
	var results []line
	var queue []line
	start := func(e *jsonl.Entry, m *message) {
		if !seen[e.ID] {
			seen[e.ID] = true
			queue = append(queue, line{e, m})
		}
	}
	start(&path[i], m)
	for _, j := range group { // the group's other lines on the path
		start(&path[j], msgs[j])
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		switch {
		case x.m == nil: // no message: passed through
		case x.e.Type == "assistant":
			t.lines = append(t.lines, x)
		default:
			results = append(results, x)
		}
		if children == nil {
			continue
		}
		for _, k := range children(x.e.ID) {
			if seen[k.ID] {
				continue
			}
			k := k
			var km *message
			if k.Type == "user" || k.Type == "assistant" {
				r, err := readMessage(&k)
				if err != nil {
					continue // a broken line off the path holds nothing (SPEC §4)
				}
				if k.Type == "assistant" && (m.id == "" || r.id != m.id) {
					continue // the next API message
				}
				if k.Type == "user" && len(r.results) == 0 {
					continue // the next prompt
				}
				km = r
			}
			seen[k.ID] = true
			queue = append(queue, line{&k, km})
		}
	}
	byLine := func(a, b line) int { return a.e.Line - b.e.Line }
	slices.SortFunc(t.lines, byLine)
	slices.SortFunc(results, byLine)
	calls := map[string]bool{}
	for _, g := range t.lines {
		for _, u := range g.m.uses {
			calls[u] = true
		}
	}
	for k := range results {
		for _, id := range results[k].m.results {
			if calls[id] && t.result[id] == nil {
				t.result[id] = &results[k]
			}
		}
	}
	return t
}

// whole reports whether the path (msgs: the message of each path entry,
// nil for no message; onPath: entry id → index) holds the turn whole and
// in an order the model can read: every line of the group and every
// result line on the path, each result after its tool_use, and between
// the group's first line and its last line or result only lines of the
// turn or lines that are no message. Claude Code 2.0 wrote parallel calls
// so (the tool_use lines, then their result lines, one chain), and the
// path's order is then kept.
func (t *turn) whole(msgs []*message, onPath map[string]int) bool {
	first, last := -1, -1
	in := map[int]bool{}
	for _, g := range t.lines {
		p, ok := onPath[g.e.ID]
		if !ok {
			return false
		}
		if first < 0 || p < first {
			first = p
		}
		last = max(last, p)
		in[p] = true
		for _, u := range g.m.uses {
			r := t.result[u]
			if r == nil {
				continue
			}
			q, ok := onPath[r.e.ID]
			if !ok || q < p {
				return false
			}
			last = max(last, q)
			in[q] = true
		}
	}
	for j := first + 1; j < last; j++ {
		if msgs[j] != nil && !in[j] {
			return false
		}
	}
	return true
}

// message is what Context reads of a Claude user or assistant entry: its
// message as stored (a sub-slice of the line), the message's model and
// id ("" when it is no string), and the ids of its tool_use blocks and of
// the calls its tool_result blocks answer, in order (a string content has
// none).
type message struct {
	raw, model    json.RawMessage
	id            string
	uses, results []string
}

// readMessage reads the message of the Claude entry e, going over the line
// once, the message once more and its content twice (a 50 MB image is
// never copied nor decoded, SPEC §2.8).
func readMessage(e *jsonl.Entry) (*message, error) {
	o, ok := kit.ObjectFields(e.Raw)
	if !ok {
		return nil, errs.New(errs.CodeBadLine, e.Type+" entry is not a JSON object").At(e.Line, e.Offset)
	}
	raw := o["message"]
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errs.New(errs.CodeBadLine, e.Type+" entry without a message object").At(e.Line, e.Offset)
	}
	mf, _ := kit.ObjectFields(raw)
	m := &message{raw: raw, model: mf["model"]}
	if id := mf["id"]; len(id) > 0 && id[0] == '"' {
		m.id = kit.JSString(id)
	}
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
