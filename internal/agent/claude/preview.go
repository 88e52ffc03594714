package claude

import (
	"strings"

	"github.com/grove-sessions/grove/internal/agent/kit"
)

// Preview is the unclipped preview of a Claude Code line (FORMATS.md
// §1.4): user and assistant lines as a chat message (kit.ChatPreview), a
// user line's CLI wrapper tags hidden ("/clear args", "! cmd" for bash
// mode, a command's output without its tags), isMeta lines marked
// "[meta]" and the compaction summary "[compact summary]"; a
// compact_boundary is "compaction (continues from <logicalParentUuid>)",
// another system line its content, a progress line
// "[progress hook <name>] <command>", an attachment "[attachment <type>]",
// a summary "summary: <text>", anything else "[<type>]". A field of an
// unexpected type is left out; a line that is no JSON object gives "".
func Preview(raw []byte) string {
	var l pvClaude
	if !kit.DecodeLoose(raw, &l) {
		return ""
	}
	switch l.Type {
	case "user", "assistant":
		if l.Message == nil {
			return "[" + l.Type + "]"
		}
		var text func(string) string
		if l.Type == "user" {
			text = unwrap
		}
		blocks := l.Message.Content
		if l.Type == "user" {
			blocks = withoutIDEContext(blocks)
		}
		t := kit.ChatPreview(blocks, text)
		if l.Message.Content == nil {
			var s struct {
				Message struct {
					Content *string `json:"content"`
				} `json:"message"`
			}
			if kit.DecodeLoose(raw, &s) && s.Message.Content != nil {
				t = *s.Message.Content
				if l.Type == "user" {
					t = unwrap(t)
				}
			}
		}
		switch {
		case l.IsCompactSummary:
			return "[compact summary] " + t
		case l.IsMeta:
			return "[meta] " + t
		}
		return t
	case "system":
		if l.Subtype == "compact_boundary" {
			if l.LogicalParent == "" {
				return "compaction"
			}
			return "compaction (continues from " + l.LogicalParent + ")"
		}
		if strings.TrimSpace(l.Content) != "" {
			return l.Content
		}
		return strings.TrimSpace("[system " + l.Subtype + "]")
	case "progress":
		if l.Data.Type == "hook_progress" {
			name := l.Data.HookName
			if name == "" {
				name = l.Data.HookEvent
			}
			return strings.TrimSpace("[progress hook "+name+"] ") + " " + l.Data.Command
		}
		return strings.TrimSpace("[progress " + l.Data.Type + "]")
	case "attachment":
		return strings.TrimSpace("[attachment " + l.Attachment.Type + "]")
	case "summary":
		return "summary: " + l.Summary
	case "":
		return ""
	}
	return "[" + l.Type + "]"
}

// pvClaude is what a preview reads of a Claude Code line.
type pvClaude struct {
	Type             string    `json:"type"`
	Subtype          string    `json:"subtype"`
	Content          string    `json:"content"`
	LogicalParent    string    `json:"logicalParentUuid"`
	IsMeta           bool      `json:"isMeta"`
	IsCompactSummary bool      `json:"isCompactSummary"`
	Message          *kit.Chat `json:"message"`
	Summary          string    `json:"summary"`
	Data             struct {
		Type      string `json:"type"`
		HookEvent string `json:"hookEvent"`
		HookName  string `json:"hookName"`
		Command   string `json:"command"`
	} `json:"data"`
	Attachment struct {
		Type string `json:"type"`
	} `json:"attachment"`
}

// ideContext starts a text block the IDE extension adds beside what the
// user typed (FORMATS.md §1.4): the file open in the editor, the selection.
var ideContext = []string{"<ide_opened_file>", "<ide_selection>"}

// withoutIDEContext is blocks without the text blocks that are IDE
// context, when another text block is left: the preview shows what the
// user typed, as the session's first message does (jsonl's claudeUserText).
// A message of IDE context alone keeps it.
func withoutIDEContext(blocks []kit.ChatBlock) []kit.ChatBlock {
	var out []kit.ChatBlock
	typed := false
	for _, b := range blocks {
		if b.Type == "text" {
			t := strings.TrimLeft(b.Text, " \t\r\n")
			if strings.HasPrefix(t, ideContext[0]) || strings.HasPrefix(t, ideContext[1]) {
				continue
			}
			typed = typed || strings.TrimSpace(t) != ""
		}
		out = append(out, b)
	}
	if !typed {
		return blocks
	}
	return out
}

// wrappers are the tags Claude Code wraps around what the user did at its
// prompt (FORMATS.md §1.4): a slash command, bash mode and their output.
var wrappers = []string{"command-name", "command-message", "command-args",
	"local-command-stdout", "local-command-stderr", "bash-input", "bash-stdout", "bash-stderr"}

// unwrap shows a user text that starts with one of Claude Code's wrapper
// tags as the user saw it: a slash command as "/name args", bash mode as
// "! command", output without its tags. Other text is returned as it is,
// tags and all.
func unwrap(s string) string {
	t := strings.TrimSpace(s)
	wrapped := false
	for _, tag := range wrappers {
		if strings.HasPrefix(t, "<"+tag+">") {
			wrapped = true
			break
		}
	}
	if !wrapped {
		return s
	}
	if name, ok := inner(t, "command-name"); ok {
		args, _ := inner(t, "command-args")
		return strings.TrimSpace(name + " " + args)
	}
	if cmd, ok := inner(t, "bash-input"); ok {
		return "! " + cmd
	}
	for _, tag := range wrappers {
		t = strings.ReplaceAll(t, "<"+tag+">", " ")
		t = strings.ReplaceAll(t, "</"+tag+">", " ")
	}
	return strings.TrimSpace(t)
}

// inner is the text between <tag> and </tag> in s.
func inner(s, tag string) (string, bool) {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return "", false
	}
	in, _, _ := strings.Cut(after, "</"+tag+">")
	return strings.TrimSpace(in), true
}
