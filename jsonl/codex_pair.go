package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/grove-sessions/grove/errs"
)

// Pairing a Codex rollout's event_msg copies with the response items they
// repeat (SPEC §3.5, FORMATS.md §2.4). Codex writes what it shows twice: a
// typed prompt as a response_item user message and an event_msg
// user_message, an answer as a response_item assistant message (one
// agent_message per output_text block), a reasoning summary as a reasoning
// item (one agent_reasoning per summary part). Either may come first. Older,
// sub-agent and test rollouts write only the event. The rule, per turn:
//
//   - a turn starts at a turn start (CodexTurnStarts) and runs to the next
//     one; the lines before the first turn start are a turn as well;
//   - the slots of a turn: each response_item user message that is not
//     context Codex injected (codexContextPrefixes) is one slot for a
//     user_message, carrying the text of each of its input_text blocks and
//     their texts joined; each output_text block of an assistant message is
//     a slot for an agent_message; each summary part of a reasoning item a
//     slot for an agent_reasoning;
//   - in file order, each event takes the first free slot of its kind in
//     its turn, before or after it, that carries its text (white space at
//     either end aside); then, in file order, each event left takes the
//     first free slot of its kind: the copy in a redacted or re-serialised
//     file need not equal its item (corpus 019c8a4d…:
//     "[REDACTED_MESSAGE len=115 …]" beside "[REDACTED_TEXT len=115 …]");
//   - an event that takes a slot is a copy (Entry.Copy: no search text of
//     its own, no message); an event left over is its own: a user_message
//     gets Role "user", an agent_message "assistant" (both messages, in
//     `messages`, search and the first message), an agent_reasoning
//     "reasoning" (search text, as a reasoning item's).
//
// The reader decides in one pass: at the first event of a turn it reads the
// turn on its own (from the turn's first line to the next turn start, at
// most to the end of the committed lines it reads), keeping one record per
// event and per slot (offsets and text hashes, never the lines). A read
// through a reader without ReadAt and Seek cannot do that: every event is
// then taken for a copy. A read whose last turn has an event decided by
// kind alone, or left over, is not Resumable: a line appended to that turn
// may change the answer.

// EntryKind is an entry type and, where it matters, a role ("" for any).
type EntryKind struct{ Type, Role string }

// CodexTurnStarts are the Codex entries that start a turn for the pairing
// above: every turn_context line, and the event_msg task_started (newer
// Codex: turn_started) that opens a task.
var CodexTurnStarts = []EntryKind{{"turn_context", ""}, {"event_msg", "task_started"}, {"event_msg", "turn_started"}}

// codexStartsTurn reports whether an entry of type typ whose payload type
// is ptype is a turn start.
func codexStartsTurn(typ, ptype string) bool {
	for _, k := range CodexTurnStarts {
		if k.Type == typ && (k.Role == "" || k.Role == ptype) {
			return true
		}
	}
	return false
}

// codexKind is what a line is to the pairing: the kind of its event, or of
// a slot.
type codexKind uint8

const (
	codexNone codexKind = iota
	codexUser
	codexAssistant
	codexReasoning
)

// codexEventKind is the kind of an event_msg of payload type ptype.
func codexEventKind(typ, ptype string) codexKind {
	if typ != "event_msg" {
		return codexNone
	}
	switch ptype {
	case "user_message":
		return codexUser
	case "agent_message":
		return codexAssistant
	case "agent_reasoning":
		return codexReasoning
	}
	return codexNone
}

// ownRole is the Role of an event of kind k that is its own (see above).
func (k codexKind) ownRole() string {
	return [...]string{codexUser: "user", codexAssistant: "assistant", codexReasoning: "reasoning"}[k]
}

// codexTurn is what the reader knows of the turn it is in.
type codexTurn struct {
	start    int64          // byte offset of the turn's first line
	analysed bool           // read ahead: own holds every event of the turn
	own      map[int64]bool // event line offset → its own (true) or a copy
	loose    bool           // an event decided by kind alone, or left over
}

// begin starts a new turn at the line at offset off.
func (t *codexTurn) begin(off int64) { *t = codexTurn{start: off} }

// codexSlot is one slot of a turn: its kind, the hashes of the texts it
// carries, and whether an event took it.
type codexSlot struct {
	kind  codexKind
	texts []uint64
	taken bool
}

// codexEvent is one event of a turn.
type codexEvent struct {
	off  int64
	kind codexKind
	text uint64
}

// codexOwn decides whether the event_msg of kind k on line l is its own
// (see the pairing rule above), reading its turn ahead at the turn's first
// event. Errors: io_error when the turn cannot be read again, or the
// read's context is done.
func (p *parser) codexOwn(l Line) (bool, error) {
	t := &p.turn
	if !t.analysed {
		if p.at == nil {
			return false, nil
		}
		if err := p.analyseTurn(); err != nil {
			return false, err
		}
	}
	return t.own[l.Offset], nil
}

// codexAhead is the scanner turns are read ahead with. It only moves
// forward, from one turn's start to the next turn's, so that a read reads
// the file ahead once at most: held says its current line is the next
// turn's first, not yet taken.
type codexAhead struct {
	sc   *Scanner
	held bool
}

// analyseTurn reads the current turn from its first line to the next turn
// start (or the end of what p reads) and decides each of its events.
func (p *parser) analyseTurn() error {
	t, a := &p.turn, &p.ahead
	if next := a.next(); a.sc == nil || next > t.start {
		n := int64(math.MaxInt64 - 1)
		if p.end >= 0 {
			n = max(p.end-t.start, 0)
		}
		a.sc, a.held = NewScannerAt(io.NewSectionReader(p.at, t.start-p.atBase, n), t.start, 1), false
	}
	var slots []codexSlot
	var events []codexEvent
	var scratch []byte
	for k := 1; a.held || a.sc.Scan(); k++ {
		a.held = false
		l := a.sc.Line()
		if !l.Committed {
			break
		}
		if l.Offset < t.start || l.Blank() {
			continue // a turn without events, passed by
		}
		if p.opts.Context != nil && k%1024 == 0 {
			if err := p.opts.Context.Err(); err != nil {
				return err
			}
		}
		o, _, why := parseLine(l.Bytes)
		if why != "" {
			continue
		}
		typ, item, ptype, ok := codexItemOf(o)
		if !ok {
			continue
		}
		if l.Offset != t.start && codexStartsTurn(typ, ptype) {
			a.held = true
			break
		}
		if kind := codexEventKind(typ, ptype); kind != codexNone {
			field := "message"
			if kind == codexReasoning {
				field = "text"
			}
			scratch = unquoteTrim(scratch[:0], item[field])
			events = append(events, codexEvent{off: l.Offset, kind: kind, text: fnv64(scratch)})
		}
		if typ == "response_item" {
			slots, scratch = appendCodexSlots(slots, scratch, ptype, item)
		}
	}
	if err := a.sc.Err(); err != nil {
		return errs.Wrap(errs.CodeIO, err, "read session file: "+osReason(err)).In(p.opts.Path).At(0, t.start)
	}
	t.analysed, t.own = true, make(map[int64]bool, len(events))
	left := make([]bool, len(events))
	for i, e := range events {
		left[i] = !takeSlot(slots, e.kind, func(s *codexSlot) bool { return has(s.texts, e.text) })
	}
	for i, e := range events {
		if left[i] {
			t.loose = true
			t.own[e.off] = !takeSlot(slots, e.kind, func(*codexSlot) bool { return true })
		}
	}
	return nil
}

// next is the byte offset of the first line a's scanner has not taken.
func (a *codexAhead) next() int64 {
	switch {
	case a.sc == nil:
		return 0
	case a.held:
		return a.sc.Line().Offset
	}
	return a.sc.Offset()
}

// takeSlot marks the first free slot of kind k that fits taken; false when
// there is none.
func takeSlot(slots []codexSlot, k codexKind, fits func(*codexSlot) bool) bool {
	for i := range slots {
		if s := &slots[i]; !s.taken && s.kind == k && fits(s) {
			s.taken = true
			return true
		}
	}
	return false
}

func has(hs []uint64, h uint64) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// appendCodexSlots appends the slots of a response item (its payload
// object item, of type ptype): see the pairing rule above. A message whose
// content is a string is one block of that text.
func appendCodexSlots(slots []codexSlot, scratch []byte, ptype string, item object) ([]codexSlot, []byte) {
	texts := func(blocks []byte, types []string, each func(text []byte)) {
		if len(blocks) > 0 && blocks[0] == '"' {
			each(blocks)
			return
		}
		walkArray(blocks, func(block []byte) {
			var typ, text []byte
			walkObject(block, func(key, v []byte) bool {
				switch string(key) {
				case `"type"`:
					typ = v
				case `"text"`:
					text = v
				}
				return true
			})
			for _, t := range types {
				if string(typ) == t && len(text) >= 2 && text[0] == '"' {
					each(text)
					return
				}
			}
		})
	}
	switch ptype {
	case "message":
		switch role, _ := optString(item, "role", ""); role {
		case "user":
			var s codexSlot
			var joined []byte
			texts(item["content"], []string{`"input_text"`, `"text"`}, func(text []byte) {
				scratch = unquote(scratch[:0], text[1:len(text)-1])
				t := bytes.TrimSpace(scratch)
				for _, pre := range codexContextPrefixes {
					if bytes.HasPrefix(t, []byte(pre)) {
						return
					}
				}
				s.texts = append(s.texts, fnv64(t))
				joined = append(joined, scratch...)
			})
			if len(s.texts) > 1 {
				s.texts = append(s.texts, fnv64(bytes.TrimSpace(joined)))
			}
			if len(s.texts) > 0 {
				s.kind = codexUser
				slots = append(slots, s)
			}
		case "assistant":
			texts(item["content"], []string{`"output_text"`, `"text"`}, func(text []byte) {
				scratch = unquoteTrim(scratch[:0], text)
				slots = append(slots, codexSlot{kind: codexAssistant, texts: []uint64{fnv64(scratch)}})
			})
		}
	case "reasoning":
		texts(item["summary"], []string{`"summary_text"`}, func(text []byte) {
			scratch = unquoteTrim(scratch[:0], text)
			slots = append(slots, codexSlot{kind: codexReasoning, texts: []uint64{fnv64(scratch)}})
		})
	}
	return slots, scratch
}

// unquoteTrim appends the text of the JSON string raw without white space
// at either end ("" when raw is no string).
func unquoteTrim(dst, raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return dst
	}
	start := len(dst)
	dst = unquote(dst, raw[1:len(raw)-1])
	t := bytes.TrimSpace(dst[start:])
	return append(dst[:start], t...)
}

// fnv64 is the 64-bit FNV-1a hash of b.
func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// codexItemOf is what the codex rules read of a parsed rollout line o that
// can be an entry: its entry type (a legacy bare item is a response_item),
// its payload object (the line itself for a bare item; nil when the
// payload is no object) and that payload's type. ok is false for a line
// that is no entry: a header, a legacy state line, a line whose type is no
// string, a response_item, event_msg or compacted line whose payload is no
// object (why says so for the last).
func codexItemOf(o object) (typ string, item object, ptype string, ok bool) {
	typ, why := codexEntryType(o)
	if why != "" || typ == "" {
		return "", nil, "", false
	}
	item, why = codexPayload(o, &typ)
	if why != "" {
		return "", nil, "", false
	}
	ptype, _ = optString(item, "type", "")
	return typ, item, ptype, true
}

// codexEntryType is the type of a rollout line that is no header: "" for a
// legacy state line (metadata), why non-"" when the type is no string.
func codexEntryType(o object) (typ, why string) {
	if t, _ := optString(o, "type", ""); t == "session_meta" {
		return "", ""
	}
	if _, ok := o["record_type"]; ok {
		if _, has := o["payload"]; !has {
			return "", ""
		}
	}
	if k := jsonKind(o["type"]); k != 's' {
		return "", fmt.Sprintf("type: is %s, want a string (a Codex rollout line is {timestamp, type, payload})", kindNames[k])
	}
	t, _ := optString(o, "type", "")
	return t, ""
}

// codexPayload is the payload object of the rollout line o of type *typ,
// which becomes response_item for a legacy bare item (no payload, no
// timestamp); nil when an unknown record's payload is no object; why
// non-"" when a response_item's, event_msg's or compacted line's is not.
func codexPayload(o object, typ *string) (object, string) {
	payload, hasPayload := o["payload"]
	_, hasTS := o["timestamp"]
	if !hasPayload && !hasTS {
		*typ = "response_item"
		return o, ""
	}
	if !hasPayload {
		return o, ""
	}
	item, err := decodeObject(payload, "payload")
	if err != nil {
		if *typ == "response_item" || *typ == "event_msg" || *typ == "compacted" {
			return nil, fmt.Sprintf("%s line: %s", *typ, err)
		}
		return nil, ""
	}
	return item, ""
}
