package jsonl

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Search text and list text of the messages, claude and codex dialects
// (SPEC §7, FORMATS.md §4). The Rules of dialect.go call these with one
// committed entry line, raw, exactly as in the file. The append functions
// add pieces separated by '\n' (see appendString: base64 data, data: URIs
// and terminal escapes never reach the index); the user-text functions give
// the text a session list shows (first_message, SPEC §8), "" when the entry
// has none or holds text the agent injected. None of them fails or panics:
// a line that is not what it should be yields nothing.
//
// What is never indexed, in any dialect: image blocks (Anthropic image
// source.data, Codex input_image image_url), thinking signatures,
// redacted_thinking data and Codex encrypted_content.

// appendAnthropicMessageText appends the search text of one messages-log
// line (SPEC §3.6, FORMATS.md §3): raw is an Anthropic Messages API message
// {"role","content"}; see appendAnthropicContent for what content gives.
func appendAnthropicMessageText(dst, raw []byte) []byte {
	return appendAnthropicContent(dst, member(raw, `"content"`))
}

// anthropicUserText is the first-message text of a messages-log user line:
// its content when that is a string, else the text of its text blocks
// joined by one space; "" for a message of tool_result blocks only.
func anthropicUserText(raw []byte) string {
	return strings.Join(anthropicTexts(member(raw, `"content"`), nil), " ")
}

// appendAnthropicContent appends the text of an Anthropic message content:
// a string; or blocks, of which text gives its text, thinking its thinking
// (never its signature), tool_use and server_tool_use the tool name and
// every string value inside input, tool_result its content (a string, or
// the text of its text blocks). image, redacted_thinking and unknown
// blocks give nothing.
func appendAnthropicContent(dst, content []byte) []byte {
	if len(content) > 0 && content[0] == '"' {
		return appendString(dst, content)
	}
	walkArray(content, func(block []byte) {
		var typ, text, thinking, name, input, result []byte
		walkObject(block, func(key, v []byte) bool {
			switch string(key) {
			case `"type"`:
				typ = v
			case `"text"`:
				text = v
			case `"thinking"`:
				thinking = v
			case `"name"`:
				name = v
			case `"input"`:
				input = v
			case `"content"`:
				result = v
			}
			return true
		})
		switch string(typ) {
		case `"text"`:
			dst = appendString(dst, text)
		case `"thinking"`:
			dst = appendString(dst, thinking)
		case `"tool_use"`, `"server_tool_use"`:
			dst = appendString(dst, name)
			dst = appendStrings(dst, input, 0)
		case `"tool_result"`:
			dst = appendToolResult(dst, result)
		}
	})
	return dst
}

// appendToolResult appends a tool_result's content: a string, or the text
// of the text blocks of a list (image blocks and others give nothing).
func appendToolResult(dst, content []byte) []byte {
	if len(content) > 0 && content[0] == '"' {
		return appendString(dst, content)
	}
	eachTextBlock(content, func(text []byte) { dst = appendString(dst, text) })
	return dst
}

// eachTextBlock calls fn with the raw text member (nil when absent) of
// every block of type "text" in content, a JSON array of content blocks
// (pi's, Anthropic's); anything else in content is passed over.
func eachTextBlock(content []byte, fn func(text []byte)) {
	walkArray(content, func(block []byte) {
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
		if string(typ) == `"text"` {
			fn(text)
		}
	})
}

// anthropicTexts appends to parts the texts of an Anthropic content: the
// content itself when it is a string, else the text of each text block
// whose keep reports true (keep nil keeps all), decoded; a text block
// whose text is missing or not a string gives "" (as pi's
// extractTextContent).
func anthropicTexts(content []byte, keep func(string) bool) []string {
	var parts []string
	if len(content) > 0 && content[0] == '"' {
		return append(parts, decodeString(content))
	}
	eachTextBlock(content, func(text []byte) {
		if s := decodeString(text); keep == nil || keep(s) {
			parts = append(parts, s)
		}
	})
	return parts
}

// appendClaudeText appends the search text of one Claude Code entry line
// of Entry type typ (FORMATS.md §1.2–1.5, §4):
//
//   - user and assistant: message.content as appendAnthropicContent reads
//     it (text, thinking, tool_use name and input, tool_result content);
//     toolUseResult, the structured copy of the tool_result, is left out;
//   - system and compact_boundary: content, when a string (hook output,
//     local command output, "Conversation compacted");
//   - attachment: the strings of attachment.content when attachment.type
//     is hook_additional_context (text a hook gave the model); other
//     attachments (hook_success, deferred tool deltas) carry no text;
//   - progress (hook progress: the hook's command line) and unknown types:
//     nothing.
//
// Metadata lines (summary, custom-title, ...) are not entries and do not
// come here.
func appendClaudeText(dst []byte, typ string, raw []byte) []byte {
	switch typ {
	case "user", "assistant":
		return appendAnthropicContent(dst, member(member(raw, `"message"`), `"content"`))
	case "system", "compact_boundary":
		return appendString(dst, member(raw, `"content"`))
	case "attachment":
		att := member(raw, `"attachment"`)
		if string(member(att, `"type"`)) == `"hook_additional_context"` {
			return appendStrings(dst, member(att, `"content"`), 0)
		}
	}
	return dst
}

// claudeUserText is the first-message text of a Claude Code user line:
// message.content when a string, else the text of its text blocks joined
// by one space. It is "" for the lines Claude Code writes on the user's
// behalf, which FORMATS.md §1.4 hides in previews (the rules come from the
// corpus files of 1.0.x and 2.1.x):
//
//   - isMeta:true (command caveats, expanded slash commands, skill text)
//     and isCompactSummary:true (the summary after a compaction);
//   - lines of tool_result blocks only;
//   - a text that is wholly a CLI wrapper: one starting with
//     <local-command-stdout>, <local-command-stderr>, <local-command-caveat>,
//     <bash-input>, <bash-stdout>, <bash-stderr>, <user-prompt-submit-hook>
//     or <system-reminder>, the "Caveat: The messages below were generated
//     by the user while running local commands" text, and
//     "[Request interrupted by user…]";
//   - text blocks that are IDE context (<ide_opened_file>, <ide_selection>)
//     are left out of the join, so the prompt typed beside them shows.
//
// A slash command (<command-name>/x</command-name>, <command-message>,
// <command-args>) shows as the command typed, "/x args", when it has
// arguments: those are the user's words ("/orchestrator create TODO app by
// Next.js"). Without arguments ("/clear", "/init") it is only a wrapper and
// gives "", so a session started with /clear shows the prompt after it.
func claudeUserText(raw []byte) string {
	var message []byte
	meta := false
	walkObject(raw, func(key, v []byte) bool {
		switch string(key) {
		case `"isMeta"`, `"isCompactSummary"`:
			if string(v) == "true" {
				meta = true
			}
		case `"message"`:
			message = v
		}
		return true
	})
	if meta {
		return ""
	}
	parts := anthropicTexts(member(message, `"content"`), func(s string) bool {
		return !hasAnyPrefix(strings.TrimLeft(s, " \t\r\n"), claudeContextPrefixes)
	})
	text := strings.Join(parts, " ")
	trimmed := strings.TrimLeft(text, " \t\r\n")
	if hasAnyPrefix(trimmed, claudeWrapperPrefixes) {
		return ""
	}
	if hasAnyPrefix(trimmed, claudeCommandPrefixes) {
		return slashCommand(text)
	}
	return text
}

// claudeWrapperPrefixes start a user text that Claude Code wrote, not the
// user: local command output, `!` shell input and output, hook and
// reminder text, the caveat before local commands and the interrupt note.
var claudeWrapperPrefixes = []string{
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<user-prompt-submit-hook>", "<system-reminder>",
	"Caveat: The messages below were generated by the user while running local commands",
	"[Request interrupted by user",
}

// claudeCommandPrefixes start the text of a slash command; the elements
// come in either order (name first in 1.0.55, message first in 1.0.98).
var claudeCommandPrefixes = []string{"<command-name>", "<command-message>", "<command-args>"}

// claudeContextPrefixes start a text block that the IDE extension adds
// beside the prompt.
var claudeContextPrefixes = []string{"<ide_opened_file>", "<ide_selection>", "<system-reminder>"}

// slashCommand is "/name args" of a Claude Code slash-command text, "" when
// the command has no arguments or no name.
func slashCommand(text string) string {
	args := strings.TrimSpace(xmlElement(text, "command-args"))
	name := strings.TrimSpace(xmlElement(text, "command-name"))
	if args == "" || name == "" {
		return ""
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	return name + " " + args
}

// xmlElement is the text between <tag> and </tag> in s, "" when absent.
func xmlElement(s, tag string) string {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	body, _, ok := strings.Cut(rest, "</"+tag+">")
	if !ok {
		return ""
	}
	return body
}

// appendCodexText appends the search text of one Codex rollout entry line
// of Entry type typ (FORMATS.md §2.2–2.5, §4):
//
//   - response_item (its payload; a legacy bare item is the line itself):
//     a message's input_text and output_text blocks, all roles; reasoning
//     summary[].text and content[].text (never encrypted_content);
//     function_call name and arguments (a JSON string: the string values
//     inside it when it holds a JSON object or array, else the string);
//     custom_tool_call name and input; function_call_output and
//     custom_tool_call_output output (a string, unwrapped from the older
//     {"output":…,"metadata":…} JSON text; or the strings of an object or
//     list, block types and images left out); local_shell_call the strings
//     of its action (the command); web_search_call its query;
//   - compacted: payload.message;
//   - event_msg: user_message and agent_message message, agent_reasoning
//     text (the reader marks them as copies of response items, and the
//     Rules skip copies);
//   - turn_context, token_count and every other type: nothing.
func appendCodexText(dst []byte, typ string, raw []byte) []byte {
	switch typ {
	case "response_item":
		return appendCodexItem(dst, codexItem(raw))
	case "compacted":
		return appendString(dst, member(member(raw, `"payload"`), `"message"`))
	case "event_msg":
		var ptyp, message, text []byte
		walkObject(member(raw, `"payload"`), func(key, v []byte) bool {
			switch string(key) {
			case `"type"`:
				ptyp = v
			case `"message"`:
				message = v
			case `"text"`:
				text = v
			}
			return true
		})
		switch string(ptyp) {
		case `"user_message"`, `"agent_message"`:
			return appendString(dst, message)
		case `"agent_reasoning"`:
			return appendString(dst, text)
		}
	}
	return dst
}

// codexItem is the response item of a response_item line: its payload, or
// the line itself for a legacy bare item (no envelope).
func codexItem(raw []byte) []byte {
	if p := member(raw, `"payload"`); len(p) > 0 && p[0] == '{' {
		return p
	}
	return raw
}

// appendCodexItem appends the text of one Responses API item (see
// appendCodexText).
func appendCodexItem(dst, item []byte) []byte {
	var typ, content, summary, name, args, input, output, action []byte
	walkObject(item, func(key, v []byte) bool {
		switch string(key) {
		case `"type"`:
			typ = v
		case `"content"`:
			content = v
		case `"summary"`:
			summary = v
		case `"name"`:
			name = v
		case `"arguments"`:
			args = v
		case `"input"`:
			input = v
		case `"output"`:
			output = v
		case `"action"`:
			action = v
		}
		return true
	})
	switch string(typ) {
	case `"message"`:
		return appendCodexBlocks(dst, content)
	case `"reasoning"`:
		dst = appendCodexBlocks(dst, summary)
		return appendCodexBlocks(dst, content)
	case `"function_call"`:
		dst = appendString(dst, name)
		return appendJSONText(dst, args)
	case `"custom_tool_call"`:
		dst = appendString(dst, name)
		return appendString(dst, input)
	case `"function_call_output"`, `"custom_tool_call_output"`:
		return appendCodexOutput(dst, output)
	case `"local_shell_call"`:
		return appendText(dst, action, 0)
	case `"web_search_call"`:
		return appendString(dst, member(action, `"query"`))
	}
	return dst
}

// appendCodexBlocks appends the text of each block of a Codex content or
// summary list that has a string text (input_text, output_text,
// summary_text, reasoning_text); input_image blocks have none. A content
// that is a string is taken as it is.
func appendCodexBlocks(dst, blocks []byte) []byte {
	if len(blocks) > 0 && blocks[0] == '"' {
		return appendString(dst, blocks)
	}
	walkArray(blocks, func(block []byte) {
		dst = appendString(dst, member(block, `"text"`))
	})
	return dst
}

// appendJSONText appends a tool call's arguments: when v is a JSON string
// whose text is itself a JSON object or array, the string values inside
// that; else the string; a non-string v gives its string values.
func appendJSONText(dst, v []byte) []byte {
	if len(v) == 0 || v[0] != '"' {
		return appendStrings(dst, v, 0)
	}
	if inner := innerJSON(v); inner != nil {
		return appendStrings(dst, inner, 0)
	}
	return appendString(dst, v)
}

// innerJSON is the decoded text of the JSON string v when that text is a
// JSON object or array, else nil.
func innerJSON(v []byte) []byte {
	if len(v) < 2 {
		return nil
	}
	body := bytes.TrimLeft(v[1:], " \t\r\n")
	if len(body) == 0 || body[0] != '{' && body[0] != '[' {
		return nil
	}
	s := unquote(nil, v[1:len(v)-1])
	if !json.Valid(s) {
		return nil
	}
	return s
}

// appendCodexOutput appends a tool call output: a string (older Codex
// versions wrote {"output":"…","metadata":{…}} as JSON text: the output
// member is taken), or the text inside an object or list.
func appendCodexOutput(dst, v []byte) []byte {
	if len(v) == 0 || v[0] != '"' {
		return appendText(dst, v, 0)
	}
	if inner := innerJSON(v); inner != nil && inner[0] == '{' {
		if out := member(inner, `"output"`); len(out) > 0 && out[0] == '"' {
			return appendString(dst, out)
		}
	}
	return appendString(dst, v)
}

// appendText appends the string values inside v as appendStrings does, but
// leaves out the values of "type" members (block kinds such as
// "output_text") and objects that are images (type input_image or image),
// to a nesting depth of 64.
func appendText(dst, v []byte, depth int) []byte {
	if len(v) == 0 || depth > 64 {
		return dst
	}
	switch v[0] {
	case '"':
		return appendString(dst, v)
	case '{':
		switch string(member(v, `"type"`)) {
		case `"input_image"`, `"image"`:
			return dst
		}
		walkObject(v, func(key, value []byte) bool {
			if string(key) != `"type"` {
				dst = appendText(dst, value, depth+1)
			}
			return true
		})
	case '[':
		walkArray(v, func(elem []byte) { dst = appendText(dst, elem, depth+1) })
	}
	return dst
}

// codexUserText is the first-message text of a Codex response_item user
// message (payload, or the legacy bare item): the text of its input_text
// blocks joined by one space, or its content when a string. Blocks of
// context Codex injects as user messages (FORMATS.md §2.4: text starting
// with <environment_context>, "# AGENTS.md instructions", <INSTRUCTIONS>
// or <user_instructions>, leading white space ignored) are left out, so
// such a message gives "".
func codexUserText(raw []byte) string {
	content := member(codexItem(raw), `"content"`)
	keep := func(s string) bool {
		return !hasAnyPrefix(strings.TrimLeft(s, " \t\r\n"), codexContextPrefixes)
	}
	if len(content) > 0 && content[0] == '"' {
		if s := decodeString(content); keep(s) {
			return s
		}
		return ""
	}
	var parts []string
	walkArray(content, func(block []byte) {
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
		if string(typ) != `"input_text"` && string(typ) != `"text"` {
			return
		}
		if s := decodeString(text); keep(s) {
			parts = append(parts, s)
		}
	})
	return strings.Join(parts, " ")
}

// codexContextPrefixes start the text of a user message Codex injects.
var codexContextPrefixes = []string{
	"<environment_context>", "# AGENTS.md instructions", "<INSTRUCTIONS>", "<user_instructions>",
}

// member is the raw value of the member key (quotes included) of the
// object raw, the last one when repeated; nil when raw is no object or has
// no such member.
func member(raw []byte, key string) []byte {
	var v []byte
	walkObject(raw, func(k, value []byte) bool {
		if string(k) == key {
			v = value
		}
		return true
	})
	return v
}

// decodeString is the JSON string raw decoded ("" when raw is not one);
// invalid UTF-8 and lone surrogates read as U+FFFD, as encoding/json reads
// them.
func decodeString(raw []byte) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
