package transcript

import (
	"strings"

	"github.com/grove-sessions/grove/jsonl"
)

// claude renders a Claude Code entry (SPEC §3.4, FORMATS.md §1) by its type
// (jsonl/dialect.go): user and assistant lines as chat messages, an isMeta
// line marked as injected by Claude Code, the isCompactSummary line as the
// compaction's summary; a compact_boundary as a compaction marker with the
// entry it continues from (logicalParentUuid, never joined to the path);
// other system lines, progress and attachment lines as notes; an unknown
// type folded. A sidechain line is marked.
func (b *builder) claude(blk *block, e Entry, o object, typ string) {
	if typ == "system" && o.text("subtype") == "compact_boundary" {
		typ = "compact_boundary"
	}
	switch typ {
	case "user", "assistant":
		m, ok := o.obj("message")
		if !ok {
			blk.Kind = "unknown"
			blk.Title = line{txt("Claude " + typ + " line without a message")}
			blk.Parts = []part{jsonFold("entry", e.Raw)}
			break
		}
		b.chat(blk, m, true)
		if cs, _ := o.boolean("isCompactSummary"); cs {
			blk.Kind, blk.Title = "summary", line{txt("Compaction summary")}
			blk.Parts = []part{{Kind: pQuote, Caption: line{bold("The summary Claude Code continues from")}, Parts: blk.Parts}}
		} else if meta, _ := o.boolean("isMeta"); meta {
			blk.Title = append(blk.Title, txt(" "), badgeS("injected by Claude Code (isMeta)"))
		}
		if apiErr, _ := o.boolean("isApiErrorMessage"); apiErr {
			blk.Error = true
			blk.Title = append(blk.Title, txt(" "), alarmS("API error"))
		}
	case "compact_boundary":
		blk.Kind, blk.Title = "summary", line{txt("Compaction")}
		cap := line{bold("Compaction: Claude Code summarized the conversation before this point")}
		var facts []string
		if cm, ok := o.obj("compactMetadata"); ok {
			if t := cm.text("trigger"); t != "" {
				facts = append(facts, t)
			}
			if n, ok := number(cm.get("preTokens")); ok {
				facts = append(facts, grouped(n)+" tokens before")
			}
		}
		if len(facts) > 0 {
			cap = append(cap, txt(" ("+strings.Join(facts, "; ")+")"))
		}
		from := line{txt("(it names no entry it continues from)")}
		if lp := o.text("logicalParentUuid"); lp != "" {
			from = line{txt("continues from "), codeS(lp)}
			if b.onPath[lp] {
				blk.Target = clean(lp)
			}
		}
		blk.Parts = []part{{Kind: pQuote, Caption: cap, Parts: []part{linePart(from...)}}}
	case "system":
		b.claudeSystem(blk, o)
	case "progress":
		blk.Note = true
		data, _ := o.obj("data")
		blk.Title = line{bold("Progress"), txt(" "), codeS(data.text("type"))}
		if data.text("type") == "hook_progress" {
			name := data.text("hookName")
			if name == "" {
				name = data.text("hookEvent")
			}
			blk.Title = line{bold("Hook"), txt(" "), codeS(name)}
			if c := data.text("command"); c != "" {
				blk.Title = append(blk.Title, txt(" runs "), codeS(c))
			}
		} else if data != nil {
			blk.Parts = []part{jsonFold("data", data.raw())}
		}
	case "attachment":
		blk.Note = true
		at, _ := o.obj("attachment")
		blk.Title = line{bold("Attachment"), txt(" "), codeS(at.text("type"))}
		if at != nil {
			blk.Parts = []part{jsonFold("attachment", at.raw())}
		}
	default:
		blk.Note = true
		blk.Kind = "unknown"
		blk.Title = line{bold("Entry of unknown type"), txt(" "), codeS(typ)}
		blk.Parts = []part{jsonFold("entry", e.Raw)}
	}
	if sc, _ := o.boolean("isSidechain"); sc {
		blk.Meta = append(blk.Meta, line{badgeS("sidechain")})
	}
}

// claudeEnvelope are the members every Claude entry has; what else a system
// line holds is its details.
var claudeEnvelope = []string{"parentUuid", "logicalParentUuid", "isSidechain", "userType", "cwd", "sessionId",
	"version", "gitBranch", "type", "subtype", "uuid", "timestamp", "slug", "entrypoint", "content", "level",
	"isMeta", "agentId", "requestId", "promptId", "toolUseID"}

// claudeSystem is a system line other than a compact_boundary: its subtype
// and content (terminal escapes removed) as a note, a long or multi-line
// content as a code block, other members folded. level "error" is marked.
func (b *builder) claudeSystem(blk *block, o object) {
	blk.Note = true
	blk.Title = line{bold("System")}
	if st := o.text("subtype"); st != "" {
		blk.Title = append(blk.Title, txt(" "), codeS(st))
	}
	if o.text("level") == "error" {
		blk.Error = true
		blk.Title = append(blk.Title, txt(" "), alarmS("error"))
	}
	s := strings.TrimSpace(jsonl.StripEscapes(o.text("content")))
	switch {
	case s == "":
	case !strings.ContainsAny(s, "\r\n") && len(s) <= 200:
		blk.Title = append(blk.Title, txt(": "+s))
	default:
		blk.Parts = append(blk.Parts, codePart("", s))
	}
	if rest := o.without(claudeEnvelope...); len(rest) > 0 {
		blk.Parts = append(blk.Parts, jsonFold("details", rest.raw()))
	}
}

// claudeWrappers are the tags Claude Code writes around what the user did
// at its prompt (FORMATS.md §1.4), outputs by the caption they get.
var claudeOutputs = []struct{ tag, caption string }{
	{"local-command-stdout", "output"}, {"local-command-stderr", "error output"},
	{"bash-stdout", "output"}, {"bash-stderr", "error output"},
}

// claudeWrapped renders a user text that starts with one of Claude Code's
// wrapper tags as what the user did: a slash command (<command-name>,
// <command-args>), a shell command in bash mode (<bash-input>), their
// output (<local-command-stdout>, <bash-stdout>, <bash-stderr>). It
// reports false, leaving blk alone, for any other text.
func (b *builder) claudeWrapped(blk *block, s string) bool {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "<") {
		return false
	}
	if name, ok := tagText(t, "command-name"); ok && strings.HasPrefix(t, "<command-") {
		blk.Kind, blk.Title = "shell", line{txt("Slash command")}
		cmd := name
		if args, _ := tagText(t, "command-args"); args != "" {
			cmd += " " + args
		}
		blk.Parts = []part{codePart("", cmd)}
		return true
	}
	if cmd, ok := tagText(t, "bash-input"); ok && strings.HasPrefix(t, "<bash-input>") {
		blk.Kind, blk.Title = "shell", line{txt("Shell command run by the user")}
		blk.Parts = []part{codePart("sh", cmd)}
		return true
	}
	var ps []part
	for _, w := range claudeOutputs {
		if out, ok := tagText(t, w.tag); ok {
			if out == "" {
				ps = append(ps, linePart(txt("("+w.caption+": none)")))
			} else {
				ps = append(ps, captioned(codePart("", jsonl.StripEscapes(out)), txt(w.caption)))
			}
		}
	}
	if len(ps) == 0 {
		return false
	}
	blk.Kind, blk.Title, blk.Parts = "shell", line{txt("Command output")}, ps
	return true
}

// tagText is the text between <tag> and </tag> in s, trimmed.
func tagText(s, tag string) (string, bool) {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return "", false
	}
	in, _, _ := strings.Cut(after, "</"+tag+">")
	return strings.Trim(in, " \t\r\n"), true
}
