package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
)

func messagesCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "messages",
		Usage:     "the messages on the path to LEAF, exactly as stored (metadata and other entry types left out)",
		ArgsUsage: "SESSION [LEAF]",
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 2); err != nil {
				return err
			}
			return runMessages(c.Context, g, c.Args().Get(0), c.Args().Get(1))
		},
	}
}

func runMessages(ctx context.Context, g *env, session, leaf string) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	p, msgs, err := a.Messages(ctx, session, leaf)
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(g.stdout, struct {
			Session  string            `json:"session"`
			Leaf     string            `json:"leaf"`
			Messages []json.RawMessage `json:"messages"`
		}{p.Session.SessionID, p.Leaf, msgs})
	}
	for i, m := range msgs {
		if i > 0 {
			fmt.Fprintln(g.stdout)
		}
		writeMessage(g, m, "")
	}
	return nil
}

// writeMessage renders one message for people: its role (and the id of the
// entry it came from, when given), then its text, tool calls with their
// arguments, tool results, bash runs and summaries.
func writeMessage(g *env, raw json.RawMessage, entryID string) {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		fmt.Fprintln(g.stdout, string(raw))
		return
	}
	role, _ := m["role"].(string)
	// Fields a message does not have are left out, never shown as
	// "<nil>" or "()".
	head := "── " + joinPresent(" ", role, present(m["customType"]))
	if (role == "custom" || role == "hookMessage") && m["display"] == false {
		head += " (not displayed in pi)"
	}
	if role == "toolResult" {
		if n := present(m["toolName"]); n != "" {
			head += " " + n
		}
		if id := present(m["toolCallId"]); id != "" {
			head += " (" + id + ")"
		}
		if m["isError"] == true {
			head += " ERROR"
		}
	}
	if entryID != "" {
		head += "  [entry " + entryID + "]"
	}
	fmt.Fprintln(g.stdout, head)
	switch c := m["content"].(type) {
	case string:
		fmt.Fprintln(g.stdout, c)
	case []any:
		for _, b := range c {
			bm, _ := b.(map[string]any)
			switch bm["type"] {
			case "text":
				fmt.Fprintln(g.stdout, bm["text"])
			case "thinking":
				fmt.Fprintln(g.stdout, "(thinking) "+strings.TrimSpace(fmt.Sprint(bm["thinking"])))
			case "toolCall":
				line := "→ " + joinPresent(" ", present(bm["name"]), archive.JSONText(bm["arguments"]))
				if id := present(bm["id"]); id != "" {
					line += "  [" + id + "]"
				}
				fmt.Fprintln(g.stdout, line)
			case "image":
				fmt.Fprintln(g.stdout, "["+joinPresent(" ", "image", present(bm["mimeType"]))+"]")
			}
		}
	default:
		switch summary, _ := m["summary"].(string); {
		case role == "bashExecution":
			fmt.Fprintf(g.stdout, "$ %v\n%v\n", m["command"], m["output"])
		case role == "compactionSummary" || role == "branchSummary":
			fmt.Fprintln(g.stdout, summary)
		default:
			fmt.Fprintln(g.stdout, archive.Preview(raw, 200))
		}
	}
}
