package jsonl

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Shapes of rollout lines for the pairing tests, after real rollouts
// (../shared/corpus/codex and FORMATS.md §2).
const (
	cxMeta    = `{"timestamp":"2026-03-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019c0000-0000-7000-8000-000000000001","cwd":"/w"}}`
	cxStarted = `{"timestamp":"2026-03-01T10:00:01.000Z","type":"event_msg","payload":{"type":"task_started"}}`
	cxTurn    = `{"timestamp":"2026-03-01T10:00:01.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5.3-codex"}}`
	cxTokens  = `{"timestamp":"2026-03-01T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":null}}`
)

// jq is s as a JSON string.
func jq(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func cxUser(text string) string {
	return `{"timestamp":"2026-03-01T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":` + jq(text) + `}]}}`
}

func cxAssistant(texts ...string) string {
	var blocks []string
	for _, t := range texts {
		blocks = append(blocks, `{"type":"output_text","text":`+jq(t)+`}`)
	}
	return `{"timestamp":"2026-03-01T10:00:03.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[` + strings.Join(blocks, ",") + `]}}`
}

func cxReasoning(text string) string {
	return `{"timestamp":"2026-03-01T10:00:03.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":` + jq(text) + `}],"encrypted_content":"gAAA"}}`
}

func cxEvent(typ, text string) string {
	field := "message"
	if typ == "agent_reasoning" {
		field = "text"
	}
	return `{"timestamp":"2026-03-01T10:00:04.000Z","type":"event_msg","payload":{"type":"` + typ + `","` + field + `":` + jq(text) + `}}`
}

// pairing is what a read says of a rollout's events: "L<n> copy" or
// "L<n> <role>" for each user_message, agent_message and agent_reasoning,
// in file order.
func pairing(t *testing.T, r io.Reader) (string, *Result) {
	t.Helper()
	var out []string
	res, err := Read(r, Options{Path: "rollout.jsonl"}, func(e Entry) error {
		switch e.Role {
		case "user_message", "agent_message", "agent_reasoning", "user", "assistant", "reasoning":
			if e.Type != "event_msg" {
				return nil
			}
			if e.Copy {
				out = append(out, e.ID+" copy")
			} else {
				out = append(out, e.ID+" "+e.Role)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, ", "), res
}

// Which events are copies and which are messages of their own (SPEC §3.5,
// codex_pair.go), and whether the read may be resumed after them.
func TestRead_CodexPairing(t *testing.T) {
	tests := []struct {
		name      string
		lines     []string
		want      string
		resumable bool
	}{
		{"events only", []string{cxStarted, cxTurn, cxEvent("user_message", "find it"), cxTokens, cxEvent("agent_reasoning", "looking"), cxEvent("agent_message", "found it")},
			"L4 user, L6 reasoning, L7 assistant", false},
		{"item then event", []string{cxStarted, cxUser("find it"), cxEvent("user_message", "find it"), cxTurn, cxReasoning("looking"), cxEvent("agent_reasoning", "looking"), cxAssistant("found it"), cxEvent("agent_message", "found it")},
			"L4 copy, L7 copy, L9 copy", true},
		{"event then item", []string{cxTurn, cxEvent("user_message", "find it"), cxUser("find it"), cxTokens, cxEvent("agent_reasoning", "looking"), cxReasoning("looking"), cxEvent("agent_message", "found it"), cxAssistant("found it")},
			"L3 copy, L6 copy, L8 copy", true},
		{"white space at the ends", []string{cxTurn, cxEvent("agent_message", "found it\n"), cxAssistant("  found it")},
			"L3 copy", true},
		{"one event per output_text block", []string{cxTurn, cxEvent("agent_message", "one"), cxEvent("agent_message", "two"), cxAssistant("one", "two")},
			"L3 copy, L4 copy", true},
		{"markers of one length and hash are one text", []string{cxTurn, cxEvent("agent_message", "[REDACTED_MESSAGE len=8 sha=1a2b]"), cxAssistant("[REDACTED_TEXT len=8 sha=1a2b]")},
			"L3 copy", true},
		{"markers of another text are another text", []string{cxTurn, cxEvent("agent_message", "[REDACTED_MESSAGE len=8 sha=1a2b]"), cxAssistant("[REDACTED_TEXT len=9 sha=1a2b]")},
			"L3 assistant", false},
		{"the text decides before the kind", []string{cxTurn, cxEvent("agent_message", "working on it"), cxEvent("agent_message", "done"), cxAssistant("done")},
			"L3 assistant, L4 copy", false},
		{"an event that says more than its item is its own", []string{cxTurn, cxUser("fix the parser"), cxEvent("user_message", "fix the parser, see quasarword in the log"),
			cxEvent("agent_message", "nebulaword only in the event"), cxAssistant("Done."), cxEvent("agent_message", "Done.")},
			"L4 user, L5 assistant, L7 copy", false},
		{"no free slot of its kind decides it", []string{cxTurn, cxEvent("agent_message", "[REDACTED a]"), cxAssistant("[REDACTED b]"), cxEvent("agent_message", "also this")},
			"L3 assistant, L5 assistant", false},
		{"one item, the same text twice", []string{cxTurn, cxUser("again"), cxEvent("user_message", "again"), cxEvent("user_message", "again")},
			"L4 copy, L5 user", false},
		{"injected context is no reply", []string{cxStarted, cxUser("<environment_context><cwd>/w</cwd></environment_context>"), cxEvent("user_message", "hello")},
			"L4 user", false},
		{"another turn's item", []string{cxStarted, cxUser("find it"), cxTurn, cxEvent("user_message", "find it")},
			"L5 user", false},
		{"the event of the next turn", []string{cxStarted, cxEvent("user_message", "find it"), cxTurn, cxUser("find it"), cxEvent("user_message", "find it")},
			"L3 user, L6 copy", true},
		{"a turn closed by the next one", []string{cxTurn, cxEvent("agent_message", "alone"), cxTurn, cxAssistant("x"), cxEvent("agent_message", "x")},
			"L3 assistant, L6 copy", true},
		{"turn_started", []string{cxUser("hi"), `{"timestamp":"2026-03-01T10:00:01.000Z","type":"event_msg","payload":{"type":"turn_started"}}`, cxEvent("user_message", "hi")},
			"L4 user", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := cxMeta + "\n" + strings.Join(tc.lines, "\n") + "\n"
			got, res := pairing(t, strings.NewReader(in))
			if got != tc.want {
				t.Errorf("events = %s, want %s", got, tc.want)
			}
			if res.Resumable != tc.resumable {
				t.Errorf("Resumable = %v, want %v", res.Resumable, tc.resumable)
			}
		})
	}
}

// A joined user message: Codex's user_message holds the text of all its
// input_text blocks, its item one block each; either pairs by text.
func TestRead_CodexPairingJoinedPrompt(t *testing.T) {
	item := `{"timestamp":"2026-03-01T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"look at "},{"type":"input_image","image_url":"data:image/png;base64,AAAA"},{"type":"input_text","text":"this"}]}}`
	in := strings.Join([]string{cxMeta, cxTurn, item, cxEvent("user_message", "look at this"), cxEvent("user_message", "elsewhere")}, "\n") + "\n"
	if got, _ := pairing(t, strings.NewReader(in)); got != "L4 copy, L5 user" {
		t.Errorf("events = %s, want L4 copy, L5 user", got)
	}
}

// onlyReader hides ReadAt and Seek.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// Without ReadAt the turn cannot be read ahead: every event is a copy, as
// Read's doc says.
func TestRead_CodexPairingNeedsReadAt(t *testing.T) {
	in := strings.Join([]string{cxMeta, cxTurn, cxEvent("user_message", "find it")}, "\n") + "\n"
	if got, _ := pairing(t, onlyReader{strings.NewReader(in)}); got != "L3 copy" {
		t.Errorf("events = %s, want L3 copy", got)
	}
}

// ReadFrom in the middle of a turn pairs an appended event with the item
// read before it, from Resume.Turn; every cut of a rollout that says
// Resumable reads on as a read from byte 0 does (checkResume).
func TestReadFrom_CodexPairingAcrossAppends(t *testing.T) {
	lines := []string{cxMeta, cxStarted, cxUser("find it"), cxEvent("user_message", "find it"), cxTurn, cxTokens,
		cxReasoning("looking"), cxEvent("agent_reasoning", "looking"), cxEvent("agent_message", "found it"), cxAssistant("found it"),
		cxTurn, cxEvent("agent_message", "[REDACTED a]"), cxAssistant("[REDACTED b]"), cxTurn, cxEvent("agent_message", "alone"), cxTokens}
	data := []byte(strings.Join(lines, "\n") + "\n")
	whole, _ := readAtAll(t, data)
	var got []string
	for _, e := range whole {
		if e.Type == "event_msg" && e.Role != "task_started" && e.Role != "token_count" {
			got = append(got, fmt.Sprintf("%s %v %s", e.ID, e.Copy, e.Role))
		}
	}
	if g, w := strings.Join(got, ", "), "L4 true user_message, L8 true agent_reasoning, L9 true agent_message, L12 false assistant, L15 false assistant"; g != w {
		t.Fatalf("events = %s, want %s", g, w)
	}
	var resumable []int
	n := 0
	for i := range data {
		if data[i] == '\n' {
			n++
			if _, first := readAtAll(t, data[:i+1]); first.Resumable {
				resumable = append(resumable, n)
			}
			checkResume(t, data[:i+1], data)
		}
	}
	// A cut is resumable unless an event of its last turn is left over:
	// not after line 9 (the answer's copy, its item not read yet), 12 and
	// 13 (an answer its item does not repeat), 15 and 16 (an answer
	// without an item).
	if g, w := fmt.Sprint(resumable), "[1 2 3 4 5 6 7 8 10 11 14]"; g != w {
		t.Errorf("resumable cuts after lines %s, want %s", g, w)
	}
	// The cut right after the reasoning item (line 7): the appended
	// agent_reasoning pairs with it only because the read goes back to
	// the turn's start.
	_, first := readAtAll(t, []byte(strings.Join(lines[:7], "\n")+"\n"))
	if !first.Resumable || first.ResumeAt().Turn == 0 {
		t.Fatalf("after line 7: Resumable %v, Turn %d; want a resumable read whose turn starts at line 5", first.Resumable, first.ResumeAt().Turn)
	}
}

// pairingModel is the pairing rule of codex_pair.go written the plain way,
// for the property below: the file split into turns, then in each turn
// every event takes the first free slot of its kind carrying its text,
// in file order; the events left are their own. It gives "L<n> copy" or
// "L<n> own" per event.
type modelLine struct {
	start bool
	event codexKind
	text  string
	slots []modelSlot // a response item's
}

type modelSlot struct {
	kind  codexKind
	texts []string
}

func pairingModel(lines []modelLine) string {
	var out []string
	decide := func(from, to int) {
		type slot struct {
			modelSlot
			taken bool
		}
		var slots []*slot
		var events []int
		for i := from; i < to; i++ {
			for _, s := range lines[i].slots {
				slots = append(slots, &slot{modelSlot: s})
			}
			if lines[i].event != codexNone {
				events = append(events, i)
			}
		}
		copyOf := map[int]bool{}
		for _, i := range events {
			for _, s := range slots {
				if !s.taken && s.kind == lines[i].event && slices.Contains(s.texts, lines[i].text) {
					s.taken, copyOf[i] = true, true
					break
				}
			}
		}
		for _, i := range events {
			out = append(out, fmt.Sprintf("L%d %v", i+2, map[bool]string{true: "copy", false: "own"}[copyOf[i]]))
		}
	}
	from := 0
	for i := range lines {
		if lines[i].start && i > from {
			decide(from, i)
			from = i
		}
	}
	decide(from, len(lines))
	return strings.Join(out, ", ")
}

// The reader, which decides each event as it reads it and reads ahead only
// as far as it must, answers what the rule applied to each whole turn
// answers, for any mix of turns, items, events, texts and orders; and every
// cut of such a rollout that says Resumable reads on as a read from byte 0
// does (checkResume).
func TestRead_CodexPairingProperty(t *testing.T) {
	texts := []string{"alpha", "beta", " alpha", "gamma delta"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 24).Draw(rt, "lines")
		var model []modelLine
		raw := []string{cxMeta}
		for i := 0; i < n; i++ {
			text := rapid.SampledFrom(texts).Draw(rt, "text")
			var m modelLine
			var line string
			switch rapid.IntRange(0, 9).Draw(rt, "kind") {
			case 0:
				m.start, line = true, cxTurn
			case 1:
				m.start, line = true, cxStarted
			case 2:
				m.slots, line = []modelSlot{{codexUser, []string{strings.TrimSpace(text)}}}, cxUser(text)
			case 3:
				second := rapid.SampledFrom(texts).Draw(rt, "second")
				m.slots = []modelSlot{{codexAssistant, []string{strings.TrimSpace(text)}}, {codexAssistant, []string{strings.TrimSpace(second)}}}
				line = cxAssistant(text, second)
			case 4:
				m.slots, line = []modelSlot{{codexReasoning, []string{strings.TrimSpace(text)}}}, cxReasoning(text)
			case 5:
				m.event, line = codexUser, cxEvent("user_message", text)
			case 6:
				m.event, line = codexAssistant, cxEvent("agent_message", text)
			case 7:
				m.event, line = codexReasoning, cxEvent("agent_reasoning", text)
			case 8:
				line = cxTokens
			case 9:
				m.slots, line = []modelSlot{{codexAssistant, []string{strings.TrimSpace(text)}}}, cxAssistant(text)
			}
			m.text = strings.TrimSpace(text)
			model = append(model, m)
			raw = append(raw, line)
		}
		data := []byte(strings.Join(raw, "\n") + "\n")
		entries, _ := readAtAll(t, data)
		var got []string
		for _, e := range entries {
			if e.Type != "event_msg" || e.Role == "task_started" || e.Role == "token_count" {
				continue
			}
			got = append(got, fmt.Sprintf("%s %v", e.ID, map[bool]string{true: "copy", false: "own"}[e.Copy]))
		}
		if g, w := strings.Join(got, ", "), pairingModel(model); g != w {
			rt.Fatalf("reader %s\nrule   %s\nfile\n%s", g, w, data)
		}
		for i := range data {
			if data[i] == '\n' {
				checkResume(t, data[:i+1], data)
			}
		}
	})
}
