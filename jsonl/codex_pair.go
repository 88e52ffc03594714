package jsonl

import (
	"bytes"
	"io"
	"math"
	"regexp"

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
//     either end aside; a sanitiser's marker of a text's length and hash,
//     "[REDACTED_MESSAGE len=115 sha=a83ebe6f]", is the same text as any
//     other marker of that length and hash, "[REDACTED_TEXT len=115
//     sha=a83ebe6f]": corpus 019c8a4d…); an event whose text no slot
//     carries is its own, whatever slots of its kind are free (SPEC §3.5:
//     an event that says more than its item, or something else, keeps its
//     text);
//   - an event that takes a slot is a copy (Entry.Copy: no search text of
//     its own, no message); an event left over is its own: a user_message
//     gets Role "user", an agent_message "assistant" (both messages, in
//     `messages`, search and the first message), an agent_reasoning
//     "reasoning" (search text, as a reasoning item's).
//
// The reader decides each event as it reads it, in one pass, keeping one
// record per event and per slot of the turn it is in (offsets and text
// hashes, never the lines). An event whose slot came before it is decided
// at once; else the reader reads ahead through the file (a second scanner,
// which only moves forward) until a slot with its text, or to the end of
// the turn (the next turn start, at most the end of the committed lines it
// reads), where it decides the rest of the turn by the rule. The two
// answer the same as the rule applied to the whole turn: the first free
// slot with an event's text, taken in file order, is the one before it or
// the first one after it. A read through a reader without ReadAt and Seek
// cannot read ahead: an event that needs it is taken for a copy. A read
// whose last turn has an event left over is not Resumable: a line appended
// to that turn may carry its text. A read
// resumed in the middle of a turn (Resume.Turn) reads the turn's earlier
// lines again at its first event.

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

// codexTurn is what the reader knows of the turn it is in: the slots and
// events of its lines from its start to known, in file order.
type codexTurn struct {
	start  int64 // byte offset of the turn's first line
	known  int64 // the lines before this offset are recorded
	ended  bool  // the turn's last line is recorded: the next turn start, or the end of the read, was met
	slots  []codexSlot
	events []codexEvent
	at     map[int64]int // event line offset → index in events
	loose  bool          // an event was left over: its text's slot may yet be appended
	buf    []byte        // scratch for decoded texts
}

// begin starts a new turn at the line at offset off.
func (t *codexTurn) begin(off int64) {
	clear(t.at)
	*t = codexTurn{start: off, known: off, slots: t.slots[:0], events: t.events[:0], at: t.at, buf: t.buf[:0]}
}

// codexSlot is one slot of a turn: its kind, the hashes of the texts it
// carries, and whether an event took it.
type codexSlot struct {
	kind  codexKind
	texts []uint64
	taken bool
}

// codexEvent is one event of a turn, and what was decided of it.
type codexEvent struct {
	off     int64
	kind    codexKind
	text    uint64
	decided bool
	own     bool
}

// record keeps the slots or event of the rollout entry on the line at
// offset off (envelope type typ, payload item of type ptype) when the turn
// is recorded up to that line; next is the offset of the line after it.
func (t *codexTurn) record(off, next int64, typ, ptype string, item object) {
	if off != t.known {
		return // recorded already (read ahead), or not caught up yet
	}
	t.known = next
	if k := codexEventKind(typ, ptype); k != codexNone {
		field := "message"
		if k == codexReasoning {
			field = "text"
		}
		t.buf = unquoteTrim(t.buf[:0], item[field])
		if t.at == nil {
			t.at = map[int64]int{}
		}
		t.at[off] = len(t.events)
		t.events = append(t.events, codexEvent{off: off, kind: k, text: textHash(t.buf)})
	}
	if typ == "response_item" {
		t.slots, t.buf = appendCodexSlots(t.slots, t.buf, ptype, item)
	}
}

// passed notes that the main read is past the line l, which may be no
// entry (a blank or bad line, a header): a turn recorded up to l is
// recorded past it.
func (t *codexTurn) passed(l Line) {
	if t.known == l.Offset {
		t.known = l.Offset + int64(l.Skip+len(l.Bytes)) + 1
	}
}

// byText takes for the event e the first free slot of its kind that
// carries its text.
func (t *codexTurn) byText(e *codexEvent) bool {
	for i := range t.slots {
		if s := &t.slots[i]; !s.taken && s.kind == e.kind && has(s.texts, e.text) {
			s.taken, e.decided = true, true
			return true
		}
	}
	return false
}

// settle decides the events from index i on once the whole turn is
// recorded: each takes, in file order, a free slot carrying its text; an
// event left over is its own.
func (t *codexTurn) settle(i int) {
	rest := t.events[i:]
	for k := range rest {
		if e := &rest[k]; !e.decided && !t.byText(e) {
			e.decided, e.own, t.loose = true, true, true
		}
	}
}

// codexOwn decides whether the event_msg on line l, recorded by the read
// (codexTurn.record), is its own (see the pairing rule above): a free
// slot before it carrying its text makes it a copy at once; else the turn
// is read ahead, until such a slot or to the turn's end. A resumed read
// first reads again the lines of the turn before its start. Errors:
// io_error when the file cannot be read again, or the read's context's.
func (p *parser) codexOwn(l Line) (bool, error) {
	t := &p.turn
	if t.known <= l.Offset { // a resumed read: the turn's lines before it are not recorded
		if p.at == nil {
			return false, nil
		}
		if err := p.codexScan(l.Offset, nil); err != nil {
			return false, err
		}
		// The events before this line were decided by an earlier read,
		// each by a slot carrying its text (else that read was not
		// Resumable): take their slots again.
		for k := range t.events {
			if e := &t.events[k]; e.off < l.Offset && !e.decided && !t.byText(e) {
				e.decided, e.own, t.loose = true, true, true
			}
		}
	}
	i, ok := t.at[l.Offset]
	if !ok {
		return false, nil
	}
	e := &t.events[i]
	if e.decided || t.byText(e) {
		return e.own, nil
	}
	if !t.ended && p.at != nil {
		if err := p.codexScan(-1, e); err != nil {
			return false, err
		}
		if e.decided {
			return false, nil
		}
	}
	if !t.ended {
		return false, nil // without ReadAt, nothing is read ahead: a copy
	}
	t.settle(i)
	return t.events[i].own, nil
}

// codexAhead is the scanner a turn is read ahead and again with. It moves
// forward while it can: the lines it has passed that are not recorded are
// read again only by a resumed read's first turn.
type codexAhead struct {
	sc   *Scanner
	held bool // its current line is a turn start not recorded yet
}

// codexScan records the lines of the turn from t.known on: up to the one
// at offset until (-1: no such limit), or until a line gives the event want
// a free slot carrying its text (then taken), or to the turn's end (the
// next turn start, which is left unrecorded, or the end of the read).
func (p *parser) codexScan(until int64, want *codexEvent) error {
	t, a := &p.turn, &p.ahead
	next := int64(-1)
	if a.sc != nil {
		next = a.sc.Offset()
		if a.held {
			next = a.sc.Line().Offset
		}
	}
	if next < 0 || next > t.known {
		n := int64(math.MaxInt64 - 1)
		if p.end >= 0 {
			n = max(p.end-t.known, 0)
		}
		a.sc, a.held = NewScannerAt(io.NewSectionReader(p.at, t.known-p.atBase, n), t.known, 1), false
	}
	for k := 1; ; k++ {
		if !a.held && !a.sc.Scan() {
			t.ended = true
			break
		}
		a.held = false
		l := a.sc.Line()
		if !l.Committed {
			t.ended = true
			break
		}
		if l.Offset < t.known {
			continue
		}
		if p.opts.Context != nil && k%1024 == 0 {
			if err := p.opts.Context.Err(); err != nil {
				return err
			}
		}
		var typ, ptype string
		var item object
		ok := false
		if o, _, why := parseLine(l.Bytes); why == "" && !l.Blank() {
			typ, item, ptype, ok = codexItemOf(o)
		}
		if ok && l.Offset != t.start && codexStartsTurn(typ, ptype) {
			t.ended, a.held = true, true
			break
		}
		slots := len(t.slots)
		t.record(l.Offset, l.Offset+int64(l.Skip+len(l.Bytes))+1, typ, ptype, item)
		t.passed(l)
		if until >= 0 && t.known > until {
			break
		}
		if want != nil {
			for i := slots; i < len(t.slots); i++ {
				if s := &t.slots[i]; s.kind == want.kind && has(s.texts, want.text) {
					s.taken, want.decided = true, true
					return nil
				}
			}
		}
	}
	if err := a.sc.Err(); err != nil {
		return errs.Wrap(errs.CodeIO, err, "read session file: "+osReason(err)).In(p.opts.Path).At(0, t.known)
	}
	return nil
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
				s.texts = append(s.texts, textHash(t))
				joined = append(joined, scratch...)
			})
			if len(s.texts) > 1 {
				s.texts = append(s.texts, textHash(bytes.TrimSpace(joined)))
			}
			if len(s.texts) > 0 {
				s.kind = codexUser
				slots = append(slots, s)
			}
		case "assistant":
			texts(item["content"], []string{`"output_text"`, `"text"`}, func(text []byte) {
				scratch = unquoteTrim(scratch[:0], text)
				slots = append(slots, codexSlot{kind: codexAssistant, texts: []uint64{textHash(scratch)}})
			})
		}
	case "reasoning":
		texts(item["summary"], []string{`"summary_text"`}, func(text []byte) {
			scratch = unquoteTrim(scratch[:0], text)
			slots = append(slots, codexSlot{kind: codexReasoning, texts: []uint64{textHash(scratch)}})
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

// redactionMarker matches a sanitiser's stand-in for a text:
// "[REDACTED_<WORD> len=<bytes> sha=<hex>]". Its groups are the length and
// the hash.
var redactionMarker = regexp.MustCompile(`^\[REDACTED_[A-Z]+ len=([0-9]+) sha=([0-9a-f]+)\]$`)

// textHash is the hash the pairing compares texts by: of b itself, or, for
// a redaction marker, of the length and hash it stands for, so that the
// markers of one text in an event and in its item are equal.
func textHash(b []byte) uint64 {
	if len(b) > 0 && b[0] == '[' {
		if m := redactionMarker.FindSubmatch(b); m != nil {
			return fnv64(append(append(append([]byte("redacted\x00"), m[1]...), 0), m[2]...))
		}
	}
	return fnv64(b)
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
