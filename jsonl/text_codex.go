package jsonl

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Search text and list text of the codex dialect (SPEC §3.5, §7,
// FORMATS.md §2, §4): Responses API items, the compacted and event_msg
// lines, and the context Codex injects as user messages. The rules common
// to the agents' dialects are at the top of text_agents.go.

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
//     text (the Rules skip the ones the reader marks as copies of response
//     items, codex_pair.go, and index the others);
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

// codexEventText is the first-message text of an event_msg user_message
// that is a message of its own: its message, "" when that is context Codex
// injects (as codexUserText leaves it out).
func codexEventText(raw []byte) string {
	s := decodeString(member(member(raw, `"payload"`), `"message"`))
	if hasAnyPrefix(strings.TrimLeft(s, " \t\r\n"), codexContextPrefixes) {
		return ""
	}
	return s
}
