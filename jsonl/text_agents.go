package jsonl

import (
	"encoding/json"
	"strings"
)

// Search text and list text of the messages, claude and codex dialects
// (SPEC §7, FORMATS.md §4). The Rules of dialect_messages.go and
// dialect_claude.go call these with one committed entry line, raw,
// exactly as in the file. The append functions
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
