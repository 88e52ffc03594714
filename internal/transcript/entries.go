package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// builder turns entries into blocks. It remembers the tool calls it has
// seen so a result can borrow its call's file type for highlighting.
type builder struct {
	dialect string
	onPath  map[string]bool
	calls   map[string]string // tool call id -> the call's "path" argument
	names   map[string]string // tool call id -> the tool's name (Anthropic tool_use, Codex call_id)
	// hide[i] is true for an entry of the path that is not shown: a
	// Codex event_msg that repeats a response item, a token count, a
	// turn_context like the one before (hiddenCodex).
	hide   []bool
	hidden int // how many are true in hide
}

// newBuilder is the builder of d's blocks. Its only error is d.Line's (a
// Codex session's turn_context lines are read first: see hiddenCodex).
func newBuilder(d Doc) (*builder, error) {
	b := &builder{dialect: d.Dialect, onPath: map[string]bool{}, calls: map[string]string{}, names: map[string]string{}}
	for _, e := range d.Entries {
		b.onPath[e.ID] = true
	}
	if d.Dialect == "codex" {
		var err error
		if b.hide, err = hiddenCodex(d); err != nil {
			return nil, err
		}
		for _, h := range b.hide {
			if h {
				b.hidden++
			}
		}
	}
	return b, nil
}

// shown reports whether the i-th entry of the path gets a block.
func (b *builder) shown(i int) bool { return i >= len(b.hide) || !b.hide[i] }

// entry renders one entry. Whatever the line holds, it returns a block: a
// field that is missing or of the wrong type is left out and the entry's
// JSON is shown instead.
func (b *builder) entry(e Entry) block {
	blk := b.body(e)
	if e.Label != "" {
		blk.Meta = append(blk.Meta, line{txt("label "), badgeS(e.Label)})
	}
	switch e.Edited {
	case "replaced":
		blk.Meta = append(blk.Meta, line{badgeS("edited"), txt(" the model sees a context edit's content instead")})
	case "removed":
		blk.Meta = append(blk.Meta, line{badgeS("removed"), txt(" a context edit took this out of what the model sees")})
	}
	return blk
}

func (b *builder) body(e Entry) block {
	blk := block{ID: clean(e.ID), Kind: "note", Meta: meta(e)}
	o, ok := parseObject(e.Raw)
	if !ok {
		blk.Kind = "unknown"
		blk.Title = line{txt("Unreadable entry")}
		if e.Type != "" {
			blk.Title = append(blk.Title, txt(" of type "), codeS(e.Type))
		}
		blk.Parts = []part{
			linePart(txt("This line is not a JSON object; here it is as written:")),
			codePart("", string(e.Raw)),
		}
		return blk
	}
	typ := e.Type
	if typ == "" {
		typ = o.text("type")
	}
	switch b.dialect {
	case "messages":
		b.chat(&blk, o, false)
		return blk
	case "claude":
		b.claude(&blk, e, o, typ)
		return blk
	case "codex":
		b.codex(&blk, e, o, typ)
		return blk
	}
	switch typ {
	case "message":
		b.message(&blk, e, o)
	case "compaction":
		compaction(&blk, o, e)
	case "branch_summary":
		branchSummary(&blk, o)
	case "custom_message":
		custom(&blk, o, e.Raw)
	case "model_change":
		blk.Note = true
		blk.Title = line{bold("Model:"), txt(" "), codeS(o.text("modelId"))}
		if p := o.text("provider"); p != "" {
			blk.Title = append(blk.Title, txt(" ("+p+")"))
		}
		needs(&blk, e.Raw, o, "provider", "modelId")
	case "thinking_level_change":
		blk.Note = true
		blk.Title = line{bold("Thinking level:"), txt(" "), codeS(o.text("thinkingLevel"))}
		needs(&blk, e.Raw, o, "thinkingLevel")
	case "session_info":
		blk.Note = true
		if name, ok := o.str("name"); ok && name != "" {
			blk.Title = line{bold("Session name:"), txt(" " + name)}
		} else {
			blk.Title = line{bold("Session info"), txt(" (no name)")}
			blk.Parts = []part{jsonFold("entry", e.Raw)}
		}
	case "label":
		b.label(&blk, e.Raw, o)
	case "context_edit":
		b.contextEdit(&blk, e.Raw, o)
	case "usage":
		usage(&blk, e.Raw, o)
	case "custom":
		blk.Note = true
		blk.Title = line{bold("Extension data"), txt(" "), codeS(o.text("customType"))}
		blk.Parts = []part{jsonFold("data", o.get("data"))}
		if !o.has("data") {
			blk.Parts = []part{jsonFold("entry (no data)", e.Raw)}
		}
	case "metadata":
		metadata(&blk, e.Raw, o)
	default:
		blk.Note = true
		blk.Kind = "unknown"
		blk.Title = line{bold("Entry of unknown type"), txt(" "), codeS(typ)}
		blk.Parts = []part{jsonFold("entry", e.Raw)}
	}
	return blk
}

// meta is the small print of an entry: its time and id.
func meta(e Entry) []line {
	var m []line
	if e.TimestampMs != nil {
		m = append(m, line{txt(stamp(*e.TimestampMs))})
	}
	if e.ID != "" {
		m = append(m, line{refS(e.ID)})
	}
	return m
}

// needs shows the whole entry when one of its own fields is missing or not
// a string, so nothing is lost to a malformed line.
func needs(blk *block, raw []byte, o object, keys ...string) {
	for _, k := range keys {
		if _, ok := o.str(k); !ok {
			blk.Parts = append(blk.Parts, jsonFold("entry (no "+k+")", raw))
			return
		}
	}
}

// compaction: pi summarized the context before it (summary, tokensBefore,
// firstKeptEntryId or, in version 1, firstKeptEntryIndex, which e.FirstKept
// resolves).
func compaction(blk *block, o object, e Entry) {
	blk.Kind = "summary"
	blk.Title = line{txt("Compaction")}
	cap := line{bold("Compaction: earlier context was summarized")}
	var facts []string
	if n, ok := number(o.get("tokensBefore")); ok {
		facts = append(facts, grouped(n)+" tokens before")
	}
	if id, ok := o.str("firstKeptEntryId"); ok {
		facts = append(facts, "kept from entry "+id)
	} else if e.FirstKept != "" {
		facts = append(facts, "kept from entry "+e.FirstKept)
	} else if n, ok := number(o.get("firstKeptEntryIndex")); ok {
		facts = append(facts, "firstKeptEntryIndex "+n)
	}
	if len(facts) > 0 {
		cap = append(cap, txt(" ("+strings.Join(facts, "; ")+")"))
	}
	blk.Parts = []part{{Kind: pQuote, Caption: cap, Parts: summary(o)}}
	if d := o.get("details"); !empty(d) {
		blk.Parts = append(blk.Parts, jsonFold("details", d))
	}
}

// branchSummary: pi's summary of a branch the user left (summary, fromId).
func branchSummary(blk *block, o object) {
	blk.Kind = "summary"
	blk.Title = line{txt("Branch summary")}
	cap := line{bold("Summary of another branch")}
	if from, ok := o.str("fromId"); ok {
		cap = append(cap, txt(" (from "), codeS(from), txt(")"))
	}
	blk.Parts = []part{{Kind: pQuote, Caption: cap, Parts: summary(o)}}
	if d := o.get("details"); !empty(d) {
		blk.Parts = append(blk.Parts, jsonFold("details", d))
	}
}

func summary(o object) []part {
	s, ok := o.str("summary")
	switch {
	case !ok && o.has("summary"):
		return []part{captioned(codePart("json", pretty(o.get("summary"))), txt("summary (not text)"))}
	case strings.TrimSpace(s) == "":
		return []part{linePart(txt("(empty summary)"))}
	}
	return []part{mdPart(s)}
}

// label: pi's label entry sets (or, without a label, clears) the label of
// targetId.
func (b *builder) label(blk *block, raw []byte, o object) {
	blk.Note = true
	target := o.text("targetId")
	if b.onPath[target] {
		blk.Target = clean(target)
	}
	if l, ok := o.str("label"); ok && l != "" {
		blk.Title = line{bold("Label"), txt(" "), badgeS(l), txt(" on "), codeS(target)}
	} else {
		blk.Title = line{bold("Label cleared"), txt(" on "), codeS(target)}
	}
	needs(blk, raw, o, "targetId")
}

// contextEdit: pi 1.x's context_edit replaces the content of the messages
// of targetId for the model (replacement {content}), or takes them out
// (replacement null), leaving the entry itself as it was written.
func (b *builder) contextEdit(blk *block, raw []byte, o object) {
	blk.Note = true
	target := o.text("targetId")
	if b.onPath[target] {
		blk.Target = clean(target)
	}
	rep := o.get("replacement")
	switch {
	case !o.has("replacement"):
		blk.Title = line{bold("Context edit"), txt(" of "), codeS(target), txt(" "), alarmS("without a replacement")}
		blk.Parts = []part{jsonFold("entry", raw)}
	case string(bytes.TrimSpace(rep)) == "null":
		blk.Title = line{bold("Context edit"), txt(": "), codeS(target), txt(" taken out of what the model sees")}
	default:
		blk.Title = line{bold("Context edit"), txt(": the model sees new content for "), codeS(target)}
		blk.Parts = []part{jsonFold("replacement", rep)}
	}
	needs(blk, raw, o, "targetId")
}

// usage: pi 1.x's record of what a model call outside the conversation
// cost (a summary, a title); no message.
func usage(blk *block, raw []byte, o object) {
	blk.Note = true
	blk.Title = line{bold("Usage"), txt(" "), codeS(o.text("kind"))}
	if m := o.text("model"); m != "" {
		blk.Title = append(blk.Title, txt(" by "), codeS(m))
		if p := o.text("provider"); p != "" {
			blk.Title = append(blk.Title, txt(" ("+p+")"))
		}
	}
	if n := o.text("note"); n != "" {
		blk.Title = append(blk.Title, txt(": "+n))
	}
	blk.Parts = []part{jsonFold("usage", o.get("usage"))}
	if !o.has("usage") {
		blk.Parts = []part{jsonFold("entry (no usage)", raw)}
	}
}

// metadata is the plain dialect's key/value note (SPEC §3.1).
func metadata(blk *block, raw []byte, o object) {
	blk.Note = true
	blk.Title = line{bold("Metadata"), txt(" "), codeS(o.text("key")), txt(" = ")}
	v := o.get("value")
	var compact bytes.Buffer
	switch s, isStr := asString(v); {
	case v == nil:
		blk.Title = append(blk.Title, txt("(no value)"))
		blk.Parts = []part{jsonFold("entry", raw)}
	case isStr && !strings.ContainsAny(s, "\r\n") && len(s) <= 200:
		blk.Title = append(blk.Title, codeS(s))
	case json.Compact(&compact, v) == nil && compact.Len() <= 80:
		blk.Title = append(blk.Title, codeS(compact.String()))
	default:
		blk.Title = append(blk.Title, txt("…"))
		blk.Parts = []part{jsonFold("value", v)}
	}
}

// empty reports whether raw is absent, null, {} or [].
func empty(raw json.RawMessage) bool {
	var c bytes.Buffer
	if raw == nil || json.Compact(&c, raw) != nil {
		return raw == nil
	}
	switch c.String() {
	case "null", "{}", "[]":
		return true
	}
	return false
}
