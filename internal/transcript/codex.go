package transcript

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"strings"

	"github.com/grove-sessions/grove/internal/plural"
)

// codex renders a Codex rollout entry (SPEC §3.5, FORMATS.md §2) by its
// envelope type (jsonl/dialect.go): a response_item by its payload (a
// legacy bare item is its own payload), an event_msg that is no copy
// (hiddenCodex) as a note or a message, a turn_context as a one-line note,
// compacted as a compaction marker; an unknown type folded.
func (b *builder) codex(blk *block, e Entry, o object, typ string) {
	payload := o.get("payload")
	if payload == nil && typ == "response_item" {
		payload = e.Raw
	}
	p, ok := parseObject(payload)
	if !ok && (typ == "response_item" || typ == "event_msg" || typ == "turn_context" || typ == "compacted") {
		blk.Kind = "unknown"
		blk.Title = line{txt("Codex " + typ + " without a payload object")}
		blk.Parts = []part{jsonFold("entry", e.Raw)}
		return
	}
	switch typ {
	case "response_item":
		b.codexItem(blk, p)
	case "event_msg":
		codexEvent(blk, p)
	case "turn_context":
		blk.Note = true
		blk.Title = turnContext(p)
	case "compacted":
		blk.Kind, blk.Title = "summary", line{txt("Compaction")}
		cap := line{bold("Compaction: Codex replaced the history before this point")}
		if items, ok := parseArray(p.get("replacement_history")); ok {
			cap = append(cap, txt(" (with "+plural.Count(len(items), "item", "items")+" of replacement history)"))
		}
		msg := []part{linePart(txt("(no message)"))}
		if s := p.text("message"); strings.TrimSpace(s) != "" {
			msg = []part{mdPart(s)}
		}
		blk.Parts = []part{{Kind: pQuote, Caption: cap, Parts: msg}}
	default:
		blk.Note = true
		blk.Kind = "unknown"
		blk.Title = line{bold("Entry of unknown type"), txt(" "), codeS(typ)}
		blk.Parts = []part{jsonFold("entry", e.Raw)}
	}
}

// codexItem renders a response item (FORMATS.md §2.4).
func (b *builder) codexItem(blk *block, p object) {
	switch typ := p.text("type"); typ {
	case "message":
		codexMessage(blk, p)
	case "reasoning":
		blk.Kind, blk.Title = "assistant", line{txt("Reasoning")}
		var sum []string
		if items, ok := parseArray(p.get("summary")); ok {
			for _, it := range items {
				io, _ := parseObject(it)
				if s := io.text("text"); strings.TrimSpace(s) != "" {
					sum = append(sum, s)
				}
			}
		}
		if len(sum) > 0 {
			blk.Parts = append(blk.Parts, foldPart(line{txt("Reasoning summary")}, mdPart(strings.Join(sum, "\n\n"))))
		}
		if items, ok := parseArray(p.get("content")); ok {
			var texts []string
			for _, it := range items {
				io, _ := parseObject(it)
				if s := io.text("text"); strings.TrimSpace(s) != "" {
					texts = append(texts, s)
				}
			}
			if len(texts) > 0 {
				blk.Parts = append(blk.Parts, foldPart(line{txt("Reasoning")}, mdPart(strings.Join(texts, "\n\n"))))
			}
		}
		if len(blk.Parts) == 0 {
			what := "(no summary)"
			if p.has("encrypted_content") {
				what = "(encrypted; not shown)"
			}
			blk.Parts = []part{linePart(txt(what))}
		}
	case "function_call", "custom_tool_call", "local_shell_call", "tool_search_call":
		b.codexCall(blk, p)
	case "function_call_output", "custom_tool_call_output", "tool_search_call_output":
		b.codexOutput(blk, p)
	case "web_search_call":
		blk.Note, blk.Kind = true, "tool"
		blk.Title = line{bold("Web search")}
		if a, ok := p.obj("action"); ok && a.text("query") != "" {
			blk.Title = append(blk.Title, txt(" "), codeS(a.text("query")))
		}
	default:
		blk.Note, blk.Kind = true, "unknown"
		blk.Title = line{bold("Response item"), txt(" "), codeS(typ)}
		blk.Parts = []part{jsonFold("item", p.raw())}
	}
}

// codexInjected reports whether a user message's text is context Codex put
// there (AGENTS.md, the environment), not what the user typed (FORMATS.md
// §2.4).
func codexInjected(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range []string{"<environment_context>", "# AGENTS.md instructions", "<user_instructions>", "<INSTRUCTIONS>"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// codexMessage is a message item: its text items as Markdown, images as
// markers; developer and system messages and context Codex injected are
// folded.
func codexMessage(blk *block, p object) {
	role := p.text("role")
	var ps []part
	first := ""
	raw := p.get("content")
	if s, ok := asString(raw); ok {
		first = s
		ps = append(ps, mdPart(s))
	} else if items, ok := parseArray(raw); ok {
		for _, it := range items {
			io, _ := parseObject(it)
			switch io.text("type") {
			case "input_text", "output_text", "text":
				if s, ok := io.str("text"); ok {
					if first == "" {
						first = s
					}
					ps = append(ps, mdPart(s))
					continue
				}
			case "input_image":
				ps = append(ps, codexImage(io))
				continue
			}
			ps = append(ps, captioned(codePart("json", pretty(it)), txt("content item of type "), codeS(io.text("type"))))
		}
	} else if raw != nil {
		ps = append(ps, captioned(codePart("json", pretty(raw)), txt("content as written")))
	}
	if len(ps) == 0 {
		ps = []part{linePart(txt("(no content)"))}
	}
	switch {
	case role == "user" && codexInjected(first):
		blk.Kind, blk.Title = "custom", line{txt("Context"), txt(" "), badgeS("injected by Codex")}
		ps = []part{foldPart(line{txt("context sent as a user message")}, ps...)}
	case role == "user":
		blk.Kind, blk.Title = "user", line{txt("User")}
	case role == "assistant":
		blk.Kind, blk.Title = "assistant", line{txt("Assistant")}
		if ph := p.text("phase"); ph != "" {
			blk.Meta = append(blk.Meta, line{txt(ph)})
		}
	case role == "developer" || role == "system":
		blk.Kind, blk.Title = "custom", line{txt(strings.ToUpper(role[:1]) + role[1:] + " instructions")}
		ps = []part{foldPart(line{txt(role + " message")}, ps...)}
	default:
		blk.Kind, blk.Title = "unknown", line{txt("Message with role "), codeS(role)}
	}
	blk.Parts = ps
}

// codexImage is an input_image item as a marker: a data URL's type and
// size, or the URL.
func codexImage(o object) part {
	u := o.text("image_url")
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		mime, data, _ := strings.Cut(rest, ",")
		mime = strings.TrimSuffix(mime, ";base64")
		return imageMarker(clean(mime), []byte(data))
	}
	if u == "" {
		return captioned(codePart("json", pretty(o.raw())), txt("image item without a URL"))
	}
	return linePart(badgeS("image"), txt(" "), codeS(u), txt(" (not included)"))
}

// codexCall is a function, custom tool, local shell or tool search call:
// its name and call id, its arguments pretty printed when they are JSON
// (args), a custom tool's input (an apply_patch as a diff) or a shell
// command as code. The name is remembered for the call's output.
func (b *builder) codexCall(blk *block, p object) {
	typ, name, id := p.text("type"), p.text("name"), p.text("call_id")
	if typ == "local_shell_call" {
		name = "local_shell"
	}
	if id != "" {
		b.names[id] = name
		blk.Meta = append(blk.Meta, line{txt("call "), refS(id)})
	}
	blk.Kind, blk.Title = "assistant", line{txt("Tool call"), txt(" "), codeS(name)}
	switch typ {
	case "function_call":
		s, isStr := p.str("arguments")
		var args object
		var ok bool
		if isStr && kind([]byte(s)) == '{' {
			args, ok = parseObject([]byte(s))
		}
		switch {
		case ok:
			blk.Parts = b.args(name, id, args)
		case isStr && json.Valid([]byte(s)):
			blk.Parts = []part{codePart("json", pretty([]byte(s)))}
		case isStr:
			blk.Parts = []part{captioned(codePart("", s), txt("arguments (not JSON)"))}
		case p.has("arguments"):
			blk.Parts = []part{captioned(codePart("json", pretty(p.get("arguments"))), txt("arguments (not a string)"))}
		}
	case "custom_tool_call":
		lang := ""
		if name == "apply_patch" {
			lang = "diff"
		}
		blk.Parts = []part{codePart(lang, p.text("input"))}
	case "local_shell_call":
		a, _ := p.obj("action")
		var cmd []string
		if items, ok := parseArray(a.get("command")); ok {
			for _, it := range items {
				s, _ := asString(it)
				cmd = append(cmd, s)
			}
		}
		blk.Parts = []part{codePart("sh", strings.Join(cmd, " "))}
		if rest := a.without("command", "type"); len(rest) > 0 {
			blk.Parts = append(blk.Parts, codePart("json", flat(rest)))
		}
	default:
		blk.Parts = []part{jsonFold("call", p.raw())}
	}
	if len(blk.Parts) == 0 {
		blk.Parts = []part{linePart(txt("(no arguments)"))}
	}
}

// codexOutput is a call's output, fenced: a string (and an older shell
// output's {"output","metadata":{"exit_code"}} JSON, its output shown, a
// non-zero exit marked), an object's content ({"content","success"}:
// success false marked), or a list of content items.
func (b *builder) codexOutput(blk *block, p object) {
	id := p.text("call_id")
	blk.Kind, blk.Title = "tool", line{txt("Tool result")}
	if name := b.names[id]; name != "" {
		blk.Title = append(blk.Title, txt(" "), codeS(name))
	}
	if id != "" {
		blk.Meta = append(blk.Meta, line{txt("call "), refS(id)})
	}
	fail := func() {
		blk.Error = true
		blk.Title = append(blk.Title, txt(" "), alarmS("error"))
	}
	raw := p.get("output")
	if s, ok := asString(raw); ok {
		if o, ok := parseObject([]byte(s)); ok && o.has("metadata") {
			if out, ok := o.str("output"); ok {
				blk.Parts = []part{codePart("", out)}
				if md, ok := o.obj("metadata"); ok {
					if n, ok := number(md.get("exit_code")); ok {
						blk.Parts = append(blk.Parts, linePart(txt("exit code "), codeS(n)))
						if n != "0" {
							fail()
						}
					}
				}
				return
			}
		}
		if s == "" {
			blk.Parts = []part{linePart(txt("(no output)"))}
		} else {
			blk.Parts = []part{codePart("", s)}
		}
		return
	}
	if o, ok := parseObject(raw); ok {
		if ok, isBool := o.boolean("success"); isBool && !ok {
			fail()
		}
		if s, ok := o.str("content"); ok {
			blk.Parts = []part{codePart("", s)}
			return
		}
		raw = o.get("content")
	}
	if items, ok := parseArray(raw); ok {
		for _, it := range items {
			io, _ := parseObject(it)
			switch io.text("type") {
			case "input_text", "output_text", "text":
				blk.Parts = append(blk.Parts, codePart("", io.text("text")))
			case "input_image":
				blk.Parts = append(blk.Parts, codexImage(io))
			default:
				blk.Parts = append(blk.Parts, captioned(codePart("json", pretty(it)), txt("output item of type "), codeS(io.text("type"))))
			}
		}
	} else if raw != nil {
		blk.Parts = []part{captioned(codePart("json", pretty(raw)), txt("output as written"))}
	}
	if len(blk.Parts) == 0 {
		blk.Parts = []part{linePart(txt("(no output)"))}
	}
}

// codexEvent is an event_msg that is shown: a user or agent message with no
// response item to repeat (as a message marked "event"), a rollback or an
// aborted turn (marked), another event as a one-line note.
func codexEvent(blk *block, p object) {
	typ := p.text("type")
	switch typ {
	case "user_message", "agent_message":
		blk.Kind, blk.Title = "user", line{txt("User")}
		if typ == "agent_message" {
			blk.Kind, blk.Title = "assistant", line{txt("Assistant")}
		}
		blk.Title = append(blk.Title, txt(" "), badgeS("event "+typ))
		blk.Parts = []part{mdPart(p.text("message"))}
		if strings.TrimSpace(p.text("message")) == "" {
			blk.Parts = []part{linePart(txt("(no text)"))}
		}
	case "agent_reasoning", "agent_reasoning_raw_content":
		blk.Kind, blk.Title = "assistant", line{txt("Reasoning"), txt(" "), badgeS("event " + typ)}
		blk.Parts = []part{foldPart(line{txt("Reasoning")}, mdPart(p.text("text")))}
	case "thread_rolled_back":
		blk.Note, blk.Error = true, true
		n, _ := number(p.get("num_turns"))
		blk.Title = line{alarmS("Rolled back"), txt(" the last "), codeS(n), txt(" user turns: the model no longer sees them")}
	case "turn_aborted":
		blk.Note, blk.Error = true, true
		blk.Title = line{alarmS("Turn aborted")}
		if r := p.text("reason"); r != "" {
			blk.Title = append(blk.Title, txt(" ("+r+")"))
		}
	case "context_compacted":
		blk.Note = true
		blk.Title = line{bold("Context compacted")}
	case "task_started", "task_complete":
		blk.Note = true
		blk.Title = line{bold(map[string]string{"task_started": "Turn started", "task_complete": "Turn complete"}[typ])}
	default:
		blk.Note = true
		blk.Title = line{bold("Event"), txt(" "), codeS(typ)}
		if rest := p.without("type"); len(rest) > 0 {
			blk.Parts = []part{jsonFold("event", rest.raw())}
		}
	}
}

// turnContext is a turn_context's one-line note: model, effort, approval
// and sandbox policy, working directory.
func turnContext(p object) line {
	l := line{bold("Turn context:")}
	add := func(name, v string) {
		if v != "" {
			l = append(l, txt(" "+name+" "), codeS(v))
		}
	}
	add("model", p.text("model"))
	add("effort", p.text("effort"))
	add("approval", p.text("approval_policy"))
	if sb, ok := p.obj("sandbox_policy"); ok {
		add("sandbox", sb.text("type"))
	} else {
		add("sandbox", p.text("sandbox_policy"))
	}
	add("cwd", p.text("cwd"))
	if len(l) == 1 {
		l = append(l, txt(" (nothing known)"))
	}
	return l
}

// hiddenCodex says which entries of a Codex path get no block:
//
//   - an event_msg user_message, agent_message or agent_reasoning that
//     repeats a response item of its turn: Codex writes what is shown twice
//     (FORMATS.md §2.4, SPEC §3.5), and the response items are what the
//     model saw. The reader decides which events are copies (jsonl
//     codex_pair.go): a copy keeps its payload type as its role, an event
//     of its own has the role of the item it stands for (user, assistant,
//     reasoning) and is shown;
//   - an event_msg agent_reasoning_raw_content when the path holds a
//     reasoning item;
//   - an event_msg token_count (bookkeeping of the API's usage);
//   - a turn_context whose note says what the one before it said (Codex
//     writes it again at every step of a turn).
//
// Only the turn_context lines are read (d.raw); the only error is d.Line's.
func hiddenCodex(d Doc) ([]bool, error) {
	entries := d.Entries
	reasoning := false
	for _, e := range entries {
		if e.Type == "response_item" && e.Role == "reasoning" {
			reasoning = true
		}
	}
	hide := make([]bool, len(entries))
	var last uint64
	for i, e := range entries {
		switch e.Type {
		case "event_msg":
			switch e.Role {
			case "user_message", "agent_message", "agent_reasoning", "token_count":
				hide[i] = true
			case "agent_reasoning_raw_content":
				hide[i] = reasoning
			}
		case "turn_context":
			raw, err := d.raw(i)
			if err != nil {
				return nil, err
			}
			o, _ := parseObject(raw)
			p, _ := o.obj("payload")
			h := lineHash(turnContext(p))
			hide[i] = h == last
			last = h
		}
	}
	return hide, nil
}

// lineHash is a hash of what l shows.
func lineHash(l line) uint64 {
	h := fnv.New64a()
	var b bytes.Buffer
	for _, s := range l {
		b.WriteString(s.Text)
		b.WriteByte(0)
	}
	h.Write(b.Bytes())
	return h.Sum64()
}
