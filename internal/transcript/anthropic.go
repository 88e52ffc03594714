package transcript

import (
	"encoding/json"
	"strings"
)

// chat renders an Anthropic Messages API message m ({role, content}): a
// messages-log line (SPEC §3.6) or a Claude line's message (claude set:
// FORMATS.md §1.4). content is a string (Markdown) or a list of blocks:
// text, thinking (folded), tool_use (its input as tool arguments),
// tool_result (paired with its tool_use by tool_use_id, fenced), image (a
// marker, never the data). A user message of tool results alone is titled
// as a tool result.
func (b *builder) chat(blk *block, m object, claude bool) {
	role := m.text("role")
	switch role {
	case "user":
		blk.Kind, blk.Title = "user", line{txt("User")}
	case "assistant":
		blk.Kind, blk.Title = "assistant", line{txt("Assistant")}
		var info []string
		if model := m.text("model"); model != "" {
			info = append(info, model)
		}
		if stop := m.text("stop_reason"); stop != "" && stop != "end_turn" && stop != "tool_use" {
			info = append(info, "stop reason "+stop)
		}
		if len(info) > 0 {
			blk.Meta = append(blk.Meta[:len(blk.Meta):len(blk.Meta)], line{txt(strings.Join(info, " · "))})
		}
	case "":
		blk.Kind, blk.Title = "unknown", line{txt("Message without a role")}
	default:
		blk.Kind, blk.Title = "custom", line{txt("Message with role "), codeS(role)}
	}
	raw := m.get("content")
	if s, ok := asString(raw); ok {
		if claude && role == "user" && b.claudeWrapped(blk, s) {
			return
		}
		blk.Parts = []part{mdPart(s)}
		if strings.TrimSpace(s) == "" {
			blk.Parts = []part{linePart(txt("(no content)"))}
		}
		return
	}
	blocks, ok := parseArray(raw)
	if !ok {
		blk.Parts = content(raw, false, "")
		return
	}
	results := 0
	for _, br := range blocks {
		bo, _ := parseObject(br)
		if bo.text("type") == "tool_result" {
			results++
		}
	}
	if results == 1 && len(blocks) == 1 {
		// One result alone, as Claude Code writes them: the block is the
		// result, titled by its call (pi's toolResult look).
		bo, _ := parseObject(blocks[0])
		b.toolResult1(blk, bo)
		return
	}
	if results == len(blocks) && results > 0 {
		blk.Kind, blk.Title = "tool", line{txt("Tool results")}
	}
	for _, br := range blocks {
		blk.Parts = append(blk.Parts, b.chatBlock(blk, br))
	}
	if len(blk.Parts) == 0 {
		blk.Parts = []part{linePart(txt("(no content)"))}
	}
}

// chatBlock renders one content block of a chat message.
func (b *builder) chatBlock(blk *block, raw json.RawMessage) part {
	o, _ := parseObject(raw)
	switch o.text("type") {
	case "text":
		if s, ok := o.str("text"); ok {
			return mdPart(s)
		}
	case "thinking":
		if s, ok := o.str("thinking"); ok {
			if strings.TrimSpace(s) == "" {
				return foldPart(line{txt("Thinking")}, linePart(txt("(empty: only its signature was kept)")))
			}
			return foldPart(line{txt("Thinking")}, mdPart(s))
		}
	case "redacted_thinking":
		return foldPart(line{txt("Thinking")}, linePart(txt("(redacted by the provider)")))
	case "tool_use", "server_tool_use":
		return b.toolUse(o)
	case "tool_result":
		g := part{Kind: pGroup, Caption: b.resultCaption(blk, o)}
		g.Parts = b.resultContent(o)
		return g
	case "image":
		return anthropicImage(o, raw)
	}
	return captioned(codePart("json", pretty(raw)), txt("content block of type "), codeS(o.text("type")))
}

// toolUse shows a tool_use block: the tool's name and id, its input as
// arguments (args); the name is remembered for the result's title.
func (b *builder) toolUse(o object) part {
	name, id := o.text("name"), o.text("id")
	cap := line{bold("Tool call"), txt(" "), codeS(name)}
	if id != "" {
		cap = append(cap, txt(" "), refS(id))
		b.names[id] = name
	}
	g := part{Kind: pGroup, Caption: cap}
	raw := o.get("input")
	if in, ok := o.obj("input"); ok {
		g.Parts = b.args(name, id, in)
	} else if raw != nil {
		g.Parts = []part{captioned(codePart("json", pretty(raw)), txt("input (not an object)"))}
	}
	return g
}

// resultCaption is "Tool result `name` id" for a tool_result block, its
// name the paired tool_use's; an is_error result is marked, and so is blk.
func (b *builder) resultCaption(blk *block, o object) line {
	id := o.text("tool_use_id")
	cap := line{bold("Tool result")}
	if name := b.names[id]; name != "" {
		cap = append(cap, txt(" "), codeS(name))
	}
	if id != "" {
		cap = append(cap, txt(" "), refS(id))
	}
	if isErr, _ := o.boolean("is_error"); isErr {
		blk.Error = true
		cap = append(cap, txt(" "), alarmS("error"))
	}
	return cap
}

// toolResult1 makes blk the tool result o: titled by its call's name,
// the call's id in the small print.
func (b *builder) toolResult1(blk *block, o object) {
	id := o.text("tool_use_id")
	blk.Kind, blk.Title = "tool", line{txt("Tool result")}
	if name := b.names[id]; name != "" {
		blk.Title = append(blk.Title, txt(" "), codeS(name))
	}
	if isErr, _ := o.boolean("is_error"); isErr {
		blk.Error = true
		blk.Title = append(blk.Title, txt(" "), alarmS("error"))
	}
	if id != "" {
		blk.Meta = append(blk.Meta, line{txt("call "), refS(id)})
	}
	blk.Parts = b.resultContent(o)
}

// resultContent is a tool_result's content verbatim: a string, or a list of
// text blocks (code blocks) and images (markers). Long output is folded,
// never cut.
func (b *builder) resultContent(o object) []part {
	// A file's text read by a read tool (Claude's Read, pi's read) is
	// highlighted as that file; other output is not.
	lang := ""
	id := o.text("tool_use_id")
	if isErr, _ := o.boolean("is_error"); !isErr && strings.Contains(strings.ToLower(b.names[id]), "read") {
		lang = langOf(b.calls[id])
	}
	raw := o.get("content")
	if s, ok := asString(raw); ok {
		if s == "" {
			return []part{linePart(txt("(no output)"))}
		}
		return []part{codePart(lang, s)}
	}
	items, ok := parseArray(raw)
	if !ok {
		if raw == nil {
			return []part{linePart(txt("(no output)"))}
		}
		return []part{captioned(codePart("json", pretty(raw)), txt("content as written"))}
	}
	var ps []part
	for _, it := range items {
		io, _ := parseObject(it)
		switch io.text("type") {
		case "text":
			if s, ok := io.str("text"); ok && s != "" {
				ps = append(ps, codePart(lang, s))
				continue
			} else if ok {
				continue
			}
		case "image":
			ps = append(ps, anthropicImage(io, it))
			continue
		}
		ps = append(ps, captioned(codePart("json", pretty(it)), txt("content block of type "), codeS(io.text("type"))))
	}
	if len(ps) == 0 {
		return []part{linePart(txt("(no output)"))}
	}
	return ps
}

// anthropicImage is an image block {"type":"image","source":{"type":
// "base64","media_type","data"}} as a marker of its type and size: the
// data never reaches a transcript. A URL source shows its URL.
func anthropicImage(o object, raw json.RawMessage) part {
	src, ok := o.obj("source")
	if !ok {
		return captioned(codePart("json", pretty(raw)), txt("image block without a source"))
	}
	if url, ok := src.str("url"); ok {
		return linePart(badgeS("image"), txt(" "), codeS(url), txt(" (not included)"))
	}
	data, ok := stringBytes(src.get("data"))
	if !ok {
		return captioned(codePart("json", pretty(raw)), txt("image block without data"))
	}
	return imageMarker(clean(src.text("media_type")), data)
}

// imageMarker is "[image: image/png, 12.3 KB]" in both formats: the image
// is skipped, not embedded.
func imageMarker(mime string, data []byte) part {
	return part{Kind: pImage, Image: image{Mime: mime, Data: data, Skip: true}}
}
