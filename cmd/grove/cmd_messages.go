package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

func messagesCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "messages",
		Usage:     "the messages on the path to LEAF, exactly as stored (metadata and other entry types left out)",
		ArgsUsage: "SESSION [LEAF]",
		Description: "SESSION is an indexed session's id, unique id prefix or file path. A messages log (docs/dialects.md)\n" +
			"named by its path is read from the file itself, indexed or not: its lines as stored, as the\n" +
			"chapter's loadMessages gives them (blank lines skipped; a bad line or torn last line is left\n" +
			"out and named on stderr); LEAF is then one of its L<line> ids.",
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 2); err != nil {
				return err
			}
			return runMessages(c.Context, g, c.Args().Get(0), c.Args().Get(1))
		},
	}
}

func runMessages(ctx context.Context, g *env, session, leaf string) error {
	if isFileArg(session) {
		if d, ok := archive.FileDialect(ctx, session); ok && archive.AgentFor(d).Traits().FromFile {
			return runMessagesLog(ctx, g, session, leaf)
		}
	}
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	doc, err := jsondoc.MessagesTo(ctx, a, session, leaf)
	if err != nil {
		return err
	}
	if g.json {
		return jsondoc.WriteStream(g.stdout, doc)
	}
	p, msgs := doc.Of, doc.Messages
	api := archive.AgentFor(p.Session.Dialect).Traits().Form == archive.APIMessages
	for i, m := range msgs {
		if i > 0 {
			fmt.Fprintln(g.stdout)
		}
		if api { // an Anthropic message or a Codex item
			writeAgentMessage(g, m, "")
		} else {
			writeMessage(g, m, "")
		}
	}
	return nil
}

// isFileArg reports whether a session argument is spelt as a file path
// (archive.Resolve's test: a path separator, or a .jsonl name) and names a
// file that is there.
func isFileArg(arg string) bool {
	if !strings.ContainsRune(arg, '/') && !strings.HasSuffix(arg, ".jsonl") {
		return false
	}
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}

// runMessagesLog is `grove messages FILE [LEAF]` for a messages log (SPEC
// §3.6): the chapter's loadMessages, read from the file with no index.
// Every entry's line is its message, as stored; the path to LEAF (default
// the last entry, the active leaf) is every entry up to it, one chain. Bad
// lines and a torn tail are not messages: each is named on stderr, and
// left out as the reader leaves them out. LEAF naming no entry is
// unknown_entry.
func runMessagesLog(ctx context.Context, g *env, path, leaf string) error {
	log, err := archive.ReadMessagesLog(ctx, path, leaf)
	if err != nil {
		return err
	}
	for _, p := range log.Problems {
		if p.Code == errs.CodeBadLine || p.Code == errs.CodeUnterminatedTail {
			fmt.Fprintf(g.stderr, "grove: %s: line %d (byte %d): %s [%s]; not a message, left out\n", cell(path), p.Line, p.Offset, cell(p.Message), p.Code)
		}
	}
	msgs := log.Messages
	if g.json {
		return jsondoc.WriteStream(g.stdout, &jsondoc.Messages{Session: log.SessionID, Leaf: log.Leaf, Messages: msgs})
	}
	for i, m := range msgs {
		if i > 0 {
			fmt.Fprintln(g.stdout)
		}
		writeAgentMessage(g, m, "")
	}
	return nil
}

// writeMessage renders one message for people: its role (and the id of the
// entry it came from, when given), then its text, tool calls with their
// arguments, tool results, bash runs and summaries.
func writeMessage(g *env, raw json.RawMessage, entryID string) {
	m, ok := lazyObject(raw)
	if !ok {
		fmt.Fprintln(g.stdout, string(raw))
		return
	}
	role, _ := m.get("role").(string)
	// Fields a message does not have are left out, never shown as
	// "<nil>" or "()".
	head := "── " + joinPresent(" ", role, present(m.get("customType")))
	if (role == "custom" || role == "hookMessage") && m.get("display") == false {
		head += " (not displayed in pi)"
	}
	if role == "toolResult" {
		if n := present(m.get("toolName")); n != "" {
			head += " " + n
		}
		if id := present(m.get("toolCallId")); id != "" {
			head += " (" + id + ")"
		}
		if m.get("isError") == true {
			head += " ERROR"
		}
	}
	if entryID != "" {
		head += "  [entry " + entryID + "]"
	}
	fmt.Fprintln(g.stdout, head)
	content := m["content"]
	var blocks []json.RawMessage
	switch {
	case len(content) > 0 && content[0] == '"':
		writeLine(g, m.get("content"))
	case archive.Elements(content, func(b []byte) { blocks = append(blocks, b) }):
		for _, b := range blocks {
			// A block's fields are decoded only when printed: an image's
			// base64 data never is (SPEC §2.8).
			bm, _ := lazyObject(b)
			switch bm.get("type") {
			case "text":
				writeLine(g, bm.get("text"))
			case "thinking":
				fmt.Fprintln(g.stdout, "(thinking) "+strings.TrimSpace(fmt.Sprint(bm.get("thinking"))))
			case "toolCall":
				line := "→ " + joinPresent(" ", present(bm.get("name")), archive.JSONText(bm.get("arguments")))
				if id := present(bm.get("id")); id != "" {
					line += "  [" + id + "]"
				}
				fmt.Fprintln(g.stdout, line)
			case "image":
				fmt.Fprintln(g.stdout, "["+joinPresent(" ", "image", present(bm.get("mimeType")))+"]")
			}
		}
	default:
		switch summary, _ := m.get("summary").(string); {
		case role == "bashExecution":
			fmt.Fprintf(g.stdout, "$ %v\n%v\n", m.get("command"), m.get("output"))
		case role == "compactionSummary" || role == "branchSummary":
			fmt.Fprintln(g.stdout, summary)
		default:
			fmt.Fprintln(g.stdout, archive.Preview(raw, 200))
		}
	}
}

// writeLine is fmt.Fprintln(g.stdout, v) without fmt's copy of a string.
func writeLine(g *env, v any) {
	if s, ok := v.(string); ok {
		io.WriteString(g.stdout, s)
		io.WriteString(g.stdout, "\n")
		return
	}
	fmt.Fprintln(g.stdout, v)
}

// rawObject is a JSON object's members as raw sub-slices of its text
// (jsonl.Members); of a key given twice the last wins.
type rawObject map[string]json.RawMessage

// lazyObject splits raw into its members without decoding them; JSON null
// is the empty object, as json.Unmarshal into a map makes it. ok is false
// for anything else that is not a JSON object.
func lazyObject(raw []byte) (rawObject, bool) {
	m := rawObject{}
	if string(bytes.TrimSpace(raw)) == "null" {
		return m, true
	}
	ok := archive.Members(raw, func(k string, v []byte) bool { m[k] = v; return true })
	return m, ok
}

// get decodes the member key as json.Unmarshal into any decodes it (nil
// when it is missing).
func (m rawObject) get(key string) any {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}
