package transcript

import (
	"encoding/json"
	"path"
	"strings"
)

// message renders a "message" entry by its message's role (pi's
// AgentMessage: user, assistant, toolResult, bashExecution, custom, spelled
// hookMessage before version 3; branchSummary and compactionSummary).
func (b *builder) message(blk *block, e Entry, o object) {
	raw := o.get("message")
	m, ok := parseObject(raw)
	if !ok {
		blk.Kind = "unknown"
		blk.Title = line{txt("Message")}
		blk.Parts = []part{
			linePart(txt("This message is not a JSON object; the entry as written:")),
			codePart("json", pretty(e.Raw)),
		}
		return
	}
	role, ok := m.str("role")
	if !ok {
		role = e.Role
	}
	switch role {
	case "user":
		blk.Kind = "user"
		blk.Title = line{txt("User")}
		blk.Parts = content(m.get("content"), false, "")
	case "assistant":
		b.assistant(blk, m)
	case "toolResult":
		b.toolResult(blk, m)
	case "bashExecution":
		bashExecution(blk, m)
	case "custom", "hookMessage":
		custom(blk, m, raw)
	case "branchSummary":
		branchSummary(blk, m)
	case "compactionSummary":
		compaction(blk, m, Entry{})
	default:
		blk.Kind = "unknown"
		blk.Title = line{txt("Message with role "), codeS(role)}
		if role == "" {
			blk.Title = line{txt("Message without a role")}
		}
		blk.Parts = []part{codePart("json", pretty(raw))}
	}
}

// content renders a message's content: a string or an array of text and
// image blocks. Text is Markdown unless verbatim (tool output, shown in code
// blocks highlighted as lang).
func content(raw json.RawMessage, verbatim bool, lang string) []part {
	text := func(s string) part {
		if verbatim {
			return codePart(lang, s)
		}
		return mdPart(s)
	}
	var ps []part
	if s, ok := asString(raw); ok {
		if s != "" {
			ps = append(ps, text(s))
		}
	} else if blocks, ok := parseArray(raw); ok {
		for _, br := range blocks {
			bo, _ := parseObject(br)
			s, isText := bo.str("text")
			switch typ := bo.text("type"); {
			case typ == "text" && isText:
				if s != "" {
					ps = append(ps, text(s))
				}
			case typ == "image":
				ps = append(ps, imagePart(bo, br))
			default:
				ps = append(ps, captioned(codePart("json", pretty(br)), txt("content block of type "), codeS(typ)))
			}
		}
	} else if raw != nil {
		ps = append(ps, captioned(codePart("json", pretty(raw)), txt("content as written")))
	}
	if len(ps) == 0 {
		return []part{linePart(txt("(no content)"))}
	}
	return ps
}

// imagePart is pi's image block {"type":"image","data":base64,"mimeType"}.
func imagePart(bo object, raw json.RawMessage) part {
	data, ok := stringBytes(bo.get("data"))
	if !ok {
		return captioned(codePart("json", pretty(raw)), txt("image block without data"))
	}
	return part{Kind: pImage, Image: decodeImage(clean(bo.text("mimeType")), data)}
}

func (b *builder) assistant(blk *block, m object) {
	blk.Kind = "assistant"
	blk.Title = line{txt("Assistant")}
	var info line
	model, provider := m.text("model"), m.text("provider")
	switch {
	case model != "" && provider != "":
		info = line{txt(model + " (" + provider + ")")}
	case model+provider != "":
		info = line{txt(provider + model)}
	}
	stop := m.text("stopReason")
	if stop != "" {
		info = append(info, txt(" · stop reason "+stop))
	}
	if len(info) > 0 {
		blk.Meta = append(blk.Meta[:len(blk.Meta):len(blk.Meta)], info)
	}
	raw := m.get("content")
	if blocks, ok := parseArray(raw); ok {
		for _, br := range blocks {
			blk.Parts = append(blk.Parts, b.assistantBlock(br))
		}
	} else if raw != nil {
		blk.Parts = content(raw, false, "")
	}
	if msg, ok := m.str("errorMessage"); ok || stop == "error" || stop == "aborted" {
		word := "Error"
		if stop == "aborted" {
			word = "Aborted"
		}
		if msg == "" {
			msg = "(no message)"
		}
		blk.Error = stop != "aborted"
		blk.Parts = append(blk.Parts, linePart(alarmS(word+":"), txt(" "+msg)))
	}
	if len(blk.Parts) == 0 {
		blk.Parts = []part{linePart(txt("(no content)"))}
	}
}

func (b *builder) assistantBlock(raw json.RawMessage) part {
	o, _ := parseObject(raw)
	switch o.text("type") {
	case "text":
		if s, ok := o.str("text"); ok {
			return mdPart(s)
		}
	case "thinking":
		if s, ok := o.str("thinking"); ok {
			if strings.TrimSpace(s) == "" {
				if r, _ := o.boolean("redacted"); r {
					s = "(redacted by the provider)"
				} else {
					s = "(empty)"
				}
				return foldPart(line{txt("Thinking")}, linePart(txt(s)))
			}
			return foldPart(line{txt("Thinking")}, mdPart(s))
		}
	case "toolCall":
		return b.toolCall(o)
	case "image":
		return imagePart(o, raw)
	}
	return captioned(codePart("json", pretty(raw)), txt("content block of type "), codeS(o.text("type")))
}

// toolCall shows a call's name and arguments: a bash command as a shell
// block, file contents and multi-line strings as code blocks, the rest as
// JSON with its keys in the order written.
func (b *builder) toolCall(o object) part {
	name, id := o.text("name"), o.text("id")
	cap := line{bold("Tool call"), txt(" "), codeS(name)}
	if id != "" {
		cap = append(cap, txt(" "), refS(id))
	}
	g := part{Kind: pGroup, Caption: cap}
	raw := o.get("arguments")
	args, ok := parseObject(raw)
	if !ok {
		if raw != nil {
			g.Parts = []part{captioned(codePart("json", pretty(raw)), txt("arguments (not an object)"))}
		}
		return g
	}
	g.Parts = b.args(name, id, args)
	return g
}

// args shows a tool call's arguments: a shell command (bash's "command",
// Codex's "cmd") as a shell block, file contents and multi-line strings
// as code blocks highlighted by the file's type ("path", Claude's
// "file_path"), the rest as JSON with its keys in the order written. It
// remembers the call's file under id for its result.
func (b *builder) args(name, id string, args object) []part {
	p := args.text("path")
	if p == "" {
		p = args.text("file_path")
	}
	if id != "" {
		b.calls[id] = p
	}
	lang := langOf(p)
	shell := strings.EqualFold(name, "bash") || name == "exec_command" || name == "shell"
	var cmd, big []part
	var rest object
	for _, f := range args {
		s, isStr := asString(f.Val)
		switch {
		case shell && f.Key == "command" && kind(f.Val) == '[':
			if argv, ok := shellWords(f.Val); ok {
				cmd = append(cmd, codePart("sh", argv))
			} else {
				rest = append(rest, f)
			}
		case !isStr:
			rest = append(rest, f)
		case shell && (f.Key == "command" || f.Key == "cmd"):
			cmd = append(cmd, codePart("sh", s))
		case strings.ContainsAny(s, "\n") || (name == "edit" && (f.Key == "oldText" || f.Key == "newText")) ||
			(name == "write" && f.Key == "content"):
			big = append(big, captioned(codePart(lang, s), codeS(f.Key)))
		default:
			rest = append(rest, f)
		}
	}
	ps := cmd
	if len(rest) > 0 {
		ps = append(ps, codePart("json", flat(rest)))
	}
	return append(ps, big...)
}

func (b *builder) toolResult(blk *block, m object) {
	blk.Kind = "tool"
	blk.Title = line{txt("Tool result")}
	name := m.text("toolName")
	if name != "" {
		blk.Title = append(blk.Title, txt(" "), codeS(name))
	}
	if isErr, _ := m.boolean("isError"); isErr {
		blk.Error = true
		blk.Title = append(blk.Title, txt(" "), alarmS("error"))
	}
	id := m.text("toolCallId")
	if id != "" {
		blk.Meta = append(blk.Meta, line{txt("call "), refS(id)})
	}
	lang := ""
	if name == "read" {
		lang = langOf(b.calls[id])
	}
	blk.Parts = content(m.get("content"), true, lang)
	if d := m.get("details"); !empty(d) {
		blk.Parts = append(blk.Parts, details(d)...)
	}
}

// details shows a tool result's details: an edit's diff as a diff block,
// anything else as folded JSON.
func details(raw json.RawMessage) []part {
	o, ok := parseObject(raw)
	diff, isStr := o.str("diff")
	if !ok || !isStr {
		return []part{jsonFold("details", raw)}
	}
	ps := []part{captioned(codePart("diff", diff), txt("diff"))}
	if rest := o.without("diff"); len(rest) > 0 {
		ps = append(ps, jsonFold("details", rest.raw()))
	}
	return ps
}

// bashExecution is a command the user ran in pi (!cmd, or !!cmd to keep it
// out of the model's context).
func bashExecution(blk *block, m object) {
	blk.Kind = "shell"
	blk.Title = line{txt("Shell command run by the user")}
	blk.Parts = []part{codePart("sh", m.text("command"))}
	if out := m.text("output"); out != "" {
		blk.Parts = append(blk.Parts, captioned(codePart("", out), txt("output")))
	} else {
		blk.Parts = append(blk.Parts, linePart(txt("(no output)")))
	}
	status := line{txt("exit code "), codeS("none")}
	if n, ok := number(m.get("exitCode")); ok {
		status[1] = codeS(n)
		blk.Error = n != "0"
	}
	if c, _ := m.boolean("cancelled"); c {
		status = append(status, txt(" · "), alarmS("cancelled"))
		blk.Error = true
	}
	if t, _ := m.boolean("truncated"); t {
		status = append(status, txt(" · "), badgeS("output truncated"))
		if p := m.text("fullOutputPath"); p != "" {
			status = append(status, txt(", full output in "), codeS(p))
		}
	}
	if x, _ := m.boolean("excludeFromContext"); x {
		status = append(status, txt(" · "), badgeS("not sent to the model"))
	}
	blk.Parts = append(blk.Parts, linePart(status...))
}

// custom is an extension's message: pi's custom role (hookMessage before
// version 3) and the custom_message entry. display false hides it in pi's
// UI; the model still sees it.
func custom(blk *block, o object, raw []byte) {
	blk.Kind = "custom"
	blk.Title = line{txt("Extension message")}
	if t := o.text("customType"); t != "" {
		blk.Title = append(blk.Title, txt(" "), codeS(t))
	}
	if d, ok := o.boolean("display"); ok && !d {
		blk.Title = append(blk.Title, txt(" "), badgeS("hidden in pi's UI"))
	}
	blk.Parts = content(o.get("content"), false, "")
	if !o.has("content") {
		blk.Parts = []part{jsonFold("entry (no content)", raw)}
	}
	if d := o.get("details"); !empty(d) {
		blk.Parts = append(blk.Parts, jsonFold("details", d))
	}
}

// langOf guesses a code block's language from a file name.
func langOf(file string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(file), "."))
	switch ext {
	case "go", "ts", "tsx", "js", "jsx", "json", "css", "html", "sql", "sh", "c", "h", "java",
		"toml", "yaml", "xml", "rs", "py", "rb", "kt", "swift", "cpp", "cs", "php", "lua", "zig":
		return ext
	case "mjs", "cjs":
		return "js"
	case "yml":
		return "yaml"
	case "md":
		return "markdown"
	case "bash", "zsh":
		return "sh"
	}
	return ""
}

// shellWords is an argv array (Codex's shell tool: ["bash","-lc","ls"])
// as one shell command line, each word quoted when the shell would split
// or expand it; false when raw is not an array of strings.
func shellWords(raw json.RawMessage) (string, bool) {
	items, ok := parseArray(raw)
	if !ok || len(items) == 0 {
		return "", false
	}
	words := make([]string, len(items))
	for i, it := range items {
		s, ok := asString(it)
		if !ok {
			return "", false
		}
		if s == "" || strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		words[i] = s
	}
	return strings.Join(words, " "), true
}
