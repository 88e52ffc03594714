package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/plural"
)

func contextCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "context",
		Usage:     "the context a model receives at LEAF, by the rules of the session's agent (docs/context.md)",
		ArgsUsage: "SESSION [LEAF]",
		Description: `Walks the path to LEAF (default: the active leaf) and builds what pi sends to
the model there: after the last compaction on the path, its summary, then the
entries from its firstKeptEntryId on; branch summaries and custom messages
as messages; the thinking level and model in force at LEAF. keptEntryIds
names the entry each message came from.

Other dialects follow their agent: a messages log is every line; a Claude
Code session is the messages on the path (which starts at the last
compaction), where each API message (one message.id) comes with all its
lines, on the path or not, each tool call followed by its result; a Codex
rollout is Codex's own rebuild (compacted replacement_history, rebuilt
summaries, rolled-back turns dropped). For
Claude the model is the last assistant message's, for Codex the last
turn_context's model and effort (as the thinking level).

With --llm, messages are shown as the model receives them: bash runs, custom
messages and summaries become user messages with pi's wrapper texts, and a
bash run started with !! (excludeFromContext) is left out. The other
dialects' messages already are what the model received and stay as they are.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "llm", Usage: "messages as the model receives them (pi's convertToLlm)"},
		},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 2); err != nil {
				return err
			}
			return runContext(c.Context, g, c.Args().Get(0), c.Args().Get(1), c.Bool("llm"))
		},
	}
}

func runContext(ctx context.Context, g *env, session, leaf string, llm bool) error {
	var doc *jsondoc.Context
	if d, ok := archive.FileDialect(ctx, session); ok && isFileArg(session) && archive.AgentFor(d).Traits().FromFile {
		// A messages log named by its path is read from the file, indexed
		// or not, as `grove messages FILE` reads it: its context is its
		// messages (SPEC §3.6).
		p, mc, err := archive.FileContext(session, leaf)
		if err != nil {
			return err
		}
		doc = jsondoc.ContextOf(p, mc, llm)
	} else {
		a, err := g.openExisting(ctx)
		if err != nil {
			return err
		}
		defer a.Close()
		if doc, err = jsondoc.ContextAt(ctx, a, session, leaf, llm); err != nil {
			return err
		}
	}
	if g.json {
		return jsondoc.WriteStream(g.stdout, doc)
	}
	p, mc := doc.Of, doc.Context
	as := ""
	if llm {
		as = " (as the model receives it)"
	}
	at := p.Leaf
	if at == "" {
		at = "(the session has no entries)"
	}
	// What is absent is left out: no "model /" for a model without a
	// provider, no "thinking level -".
	facts := ""
	if t := presentText(mc.ThinkingLevel); t != "" {
		facts += "; thinking level " + cell(t)
	}
	if mc.Model != nil {
		if m := joinPresent("/", presentText(mc.Model.Provider), presentText(mc.Model.ModelID)); m != "" {
			facts += "; model " + cell(m)
		}
	}
	fmt.Fprintf(g.stdout, "context of %s at %s%s: %s from %s on the path%s\n",
		cell(p.Session.SessionID), cell(at), as, plural.Count(len(mc.Messages), "message", "messages"), plural.Count(len(p.Entries), "entry", "entries"), facts)
	for i, m := range mc.Messages {
		fmt.Fprintln(g.stdout)
		if archive.AgentFor(mc.Dialect).Traits().Form == archive.APIMessages {
			writeAgentMessage(g, m, mc.KeptEntryIDs[i])
		} else {
			writeMessage(g, m, mc.KeptEntryIDs[i])
		}
	}
	return nil
}

// writeAgentMessage writes, for people, one message of a messages, claude
// or codex context: an Anthropic Messages API message (text, thinking,
// tool_use with its input, tool_result with its content, images as a
// marker) or a Codex Responses API item (a message's text pieces, a
// reasoning summary, a call's name and arguments, an output) or event
// message (a user_message's or agent_message's text). Encrypted
// content, signatures and image data are never printed; a kind of item it
// does not know is shown by its type alone.
func writeAgentMessage(g *env, raw json.RawMessage, entryID string) {
	m, ok := lazyObject(raw)
	if !ok {
		fmt.Fprintln(g.stdout, string(raw))
		return
	}
	role, typ := present(m.get("role")), present(m.get("type"))
	head := role
	if typ != "" && typ != "message" {
		head = joinPresent(" ", typ, present(m.get("name")))
		if id := present(m.get("call_id")); id != "" {
			head += " (" + id + ")"
		}
	}
	if entryID != "" {
		head += "  [entry " + entryID + "]"
	}
	fmt.Fprintln(g.stdout, "── "+head)
	switch typ {
	case "function_call":
		writeLine(g, m.get("arguments"))
		return
	case "custom_tool_call":
		writeLine(g, m.get("input"))
		return
	case "function_call_output", "custom_tool_call_output":
		writeAgentContent(g, m["output"])
		return
	case "user_message", "agent_message":
		writeLine(g, m.get("message"))
		return
	case "reasoning":
		archive.Elements(m["summary"], func(b []byte) {
			bm, _ := lazyObject(b)
			fmt.Fprintln(g.stdout, "(thinking) "+strings.TrimSpace(present(bm.get("text"))))
		})
		return
	case "", "message":
	default:
		return
	}
	writeAgentContent(g, m["content"])
}

// writeAgentContent writes a string, or each block of a list of Anthropic
// or Responses API content blocks, for people.
func writeAgentContent(g *env, content json.RawMessage) {
	if len(content) > 0 && content[0] == '"' {
		var s string
		_ = json.Unmarshal(content, &s)
		writeLine(g, s)
		return
	}
	ok := archive.Elements(content, func(b []byte) {
		bm, _ := lazyObject(b)
		switch bm.get("type") {
		case "text", "input_text", "output_text":
			writeLine(g, bm.get("text"))
		case "thinking":
			fmt.Fprintln(g.stdout, "(thinking) "+strings.TrimSpace(present(bm.get("thinking"))))
		case "tool_use":
			line := "→ " + joinPresent(" ", present(bm.get("name")), archive.JSONText(bm["input"]))
			if id := present(bm.get("id")); id != "" {
				line += "  [" + id + "]"
			}
			fmt.Fprintln(g.stdout, line)
		case "tool_result":
			head := "← " + present(bm.get("tool_use_id"))
			if bm.get("is_error") == true {
				head += " ERROR"
			}
			fmt.Fprintln(g.stdout, head)
			writeAgentContent(g, bm["content"])
		case "image", "input_image":
			fmt.Fprintln(g.stdout, "[image]")
		}
	})
	if !ok && len(content) > 0 && string(content) != "null" {
		writeLine(g, archive.JSONText(content))
	}
}

// presentText renders a JSON value for people like jsonScalar, but "" for
// a value that says nothing: missing, null, or an empty or blank string.
func presentText(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	return strings.TrimSpace(jsonScalar(v))
}

// present is presentText for a decoded JSON value.
func present(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(v)
	default:
		return fmt.Sprint(v)
	}
}

// joinPresent joins the parts that are not "" with sep.
func joinPresent(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), sep)
}

// jsonScalar renders a JSON value for people: a string without quotes,
// anything else as its JSON text, a missing value as "-".
func jsonScalar(v json.RawMessage) string {
	var s string
	if len(v) == 0 {
		return "-"
	}
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
