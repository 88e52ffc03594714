package main

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/internal/mcp"
)

const mcpHelp = `grove mcp is a Model Context Protocol server on stdin and stdout (SPEC §12) for a coding agent
to search and read the sessions of grove's index: its tools search, sessions, workspaces, leaves,
branches, path, messages, context and tree take the filters of the commands of those names and
answer their --json documents (messages adds entryIds, the entry of each message). It only reads:
it creates no index, writes nothing and takes no lock, so grove watch or grove serve may keep the
same index current meanwhile. An index not made yet is an error of each call until it is there.

Each answer is at most "budget" bytes of JSON (default 16384, 1024 to 1048576); a longer one comes
in pages, each with "page" {"from","count","of"} and, while more remain, "next_cursor", given back
as "cursor" with the same arguments. A page never holds part of an element (a hit, a session, a
leaf, a message). An error is an isError result holding {"error":{"code","message",...}}, naming
the session or entry asked about (unknown_session, unknown_entry, stale_index, usage, ...).

Add it to an agent: claude mcp add grove -- grove mcp (Claude Code); codex mcp add grove -- grove
mcp, or [mcp_servers.grove] command = "grove", args = ["mcp"] in ~/.codex/config.toml (Codex);
pi mcp add grove -- grove mcp (pi 1.x). docs/mcp.md has the tools and their arguments.`

func mcpCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:        "mcp",
		Usage:       "serve the index to a coding agent over the Model Context Protocol (stdio), read-only: search, sessions, leaves, path, messages, context, tree",
		Description: mcpHelp,
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			return runMCP(c.Context, g, mcp.Stdio(os.Stdin, g.stdout))
		},
	}
}

// runMCP serves one client over t until it goes (stdin closed) or grove
// is stopped (Ctrl-C, SIGTERM): exit 0 either way. Nothing is written to
// stdout but the protocol's messages.
func runMCP(ctx context.Context, g *env, t sdk.Transport) error {
	s, err := mcp.New(mcp.Options{DB: g.dbPath, Source: g.source, Grove: newOpener(g).Grove, Version: version()})
	if err != nil {
		return err
	}
	if err := s.Run(ctx, t); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}
