package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grove-sessions/grove/internal/mcp"
	"github.com/grove-sessions/grove/internal/mcpnode"
	"github.com/grove-sessions/grove/internal/testutil"
)

// The mcp step: grove mcp's call latency on one pi session of mcpEntries
// entries (testutil.PiSessionEntries, seed 1: about 2.5 MB) in an index
// of its own. Three calls, each --search-runs times after one untimed:
// search (a common word, 20 hits), path (the active leaf's, every id) and
// messages (the active leaf's path, its first page at the default
// budget); then every page of those messages, --runs times. Each timed
//
//   - from the official TypeScript client (@modelcontextprotocol/sdk's
//     Client over StdioClientTransport, in node: internal/mcpnode) talking
//     to the grove binary's grove mcp, round trip as the client sees it;
//   - from the Go SDK's client over its in-memory transport, to the same
//     server in this process (internal/mcp): the server's own cost;
//
// beside `grove messages --json` of the same session as a new process,
// the whole answer. The SDK is installed with npm once, where grove's
// tests keep it (mcpnode.CacheDir); without node, npm or the registry the
// TypeScript client's figures are skipped.
const mcpEntries = 1000

// mcpCall is one call the step times.
type mcpCall struct {
	Label string
	Tool  string
	Args  map[string]any
}

func (s *suite) mcpStep(ctx context.Context) error {
	dir := filepath.Join(s.cfg.Work, "mcp")
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		return err
	}
	file := filepath.Join(dir, "sessions", "long.jsonl")
	if err := os.WriteFile(file, testutil.PiSessionEntries(mcpEntries, 1), 0o644); err != nil {
		return err
	}
	db := filepath.Join(dir, "index.db")
	removeDB(db)
	defer removeDB(db)
	if _, err := runProc(ctx, nil, s.grove, []string{"--db", db, "index", "--root", filepath.Dir(file)}); err != nil {
		return err
	}
	var path struct{ Path []string }
	var msgs struct{ Messages []json.RawMessage }
	for _, q := range []struct {
		cmd string
		v   any
	}{{"path", &path}, {"messages", &msgs}} {
		r, err := runProc(ctx, nil, s.grove, []string{"--db", db, "--json", q.cmd, file})
		if err != nil {
			return err
		}
		if err := json.Unmarshal(r.Stdout, q.v); err != nil {
			return fmt.Errorf("grove %s: %w", q.cmd, err)
		}
	}
	calls := []mcpCall{
		{"search: a common word, 20 hits", "search", map[string]any{"query": "the"}},
		{fmt.Sprintf("path: the active leaf's (%d entries)", len(path.Path)), "path", map[string]any{"session": file}},
		{fmt.Sprintf("messages: the active leaf's path (%d messages), first page of 16 KiB", len(msgs.Messages)), "messages", map[string]any{"session": file}},
	}
	every := "messages: every page of the same, following next_cursor"
	runs := s.cfg.SearchRuns

	// The whole answer from the command line, for scale.
	var cli []float64
	var whole int
	for i := 0; i <= runs; i++ {
		r, err := runProc(ctx, nil, s.grove, []string{"--db", db, "--json", "messages", file})
		if err != nil {
			return err
		}
		if i > 0 {
			cli = append(cli, ms(r.Wall))
		}
		whole = len(r.Stdout)
	}
	cliFig := figureOf("mcp", "grove messages --json, the same messages whole, whole process", "ms", cli)
	cliFig.Note = fmt.Sprintf("%.1f MB of JSON", float64(whole)/1e6)
	s.add(cliFig)

	// The official TypeScript client, over stdio, to the grove binary.
	npm := mcpnode.CacheDir()
	if err := mcpnode.Install(ctx, npm); err != nil {
		for _, label := range []string{calls[0].Label, calls[1].Label, calls[2].Label, every} {
			s.skip("mcp", "TypeScript client: "+label, fmt.Sprintf("no official MCP client (%s %s): %v", mcpnode.Package, mcpnode.Version, err))
		}
	} else {
		env := map[string]string{}
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
		c, err := mcpnode.Start(ctx, npm, mcpnode.Server{Command: s.grove, Args: []string{"--db", db, "mcp"}, Env: env, Dir: dir})
		if err != nil {
			return err
		}
		for _, call := range calls {
			d, err := c.Time(call.Tool, call.Args, runs+1)
			if err != nil {
				c.Close()
				return fmt.Errorf("%s: %w", call.Label, err)
			}
			var lat []float64
			for _, x := range d[1:] {
				lat = append(lat, ms(x))
			}
			s.add(figureOf("mcp", "TypeScript client: "+call.Label, "ms", lat))
		}
		d, pages, err := c.Pages("messages", calls[2].Args, s.cfg.Runs)
		if err != nil {
			c.Close()
			return fmt.Errorf("%s: %w", every, err)
		}
		var lat []float64
		for _, x := range d {
			lat = append(lat, ms(x))
		}
		f := figureOf("mcp", "TypeScript client: "+every, "ms", lat)
		f.Note = fmt.Sprintf("%d pages", pages)
		s.add(f)
		if stderr, err := c.Close(); err != nil {
			return fmt.Errorf("the TypeScript client: %v\n%s", err, stderr)
		}
	}

	// The Go SDK's client, in memory, to the server in this process.
	srv, err := mcp.New(mcp.Options{DB: db, Grove: "grove", Version: "grove-bench"})
	if err != nil {
		return err
	}
	defer srv.Close()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		return err
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "grove-bench", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	for _, call := range calls {
		var lat []float64
		size := 0
		for i := 0; i <= runs; i++ {
			start := time.Now()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: call.Tool, Arguments: call.Args})
			d := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %w", call.Label, err)
			}
			if res.IsError {
				b, _ := json.Marshal(res.StructuredContent)
				return fmt.Errorf("%s: %s", call.Label, b)
			}
			if i > 0 {
				lat = append(lat, ms(d))
			}
			if t, ok := res.Content[0].(*sdk.TextContent); ok {
				size = len(t.Text)
			}
		}
		f := figureOf("mcp", "Go in-memory client: "+call.Label, "ms", lat)
		f.Note = fmt.Sprintf("answer %d bytes", size)
		s.add(f)
	}
	var lat []float64
	pages := 0
	for i := 0; i < s.cfg.Runs; i++ {
		start := time.Now()
		pages = 0
		for cursor := ""; ; {
			args := map[string]any{"session": file}
			if cursor != "" {
				args["cursor"] = cursor
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "messages", Arguments: args})
			if err != nil || res.IsError {
				return fmt.Errorf("%s: page %d: %v", every, pages, err)
			}
			pages++
			var page struct {
				Next string `json:"next_cursor"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &page)
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		lat = append(lat, ms(time.Since(start)))
	}
	f := figureOf("mcp", "Go in-memory client: "+every, "ms", lat)
	f.Note = fmt.Sprintf("%d pages", pages)
	s.add(f)
	return nil
}
