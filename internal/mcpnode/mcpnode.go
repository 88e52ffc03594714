// Package mcpnode drives the official TypeScript MCP SDK from Go: its
// Client, over StdioClientTransport, connected to a server command (grove
// mcp), in a node process that takes one request a line (client.cjs).
// grove's tests and grove-bench check grove mcp against this real client.
//
// It needs node and npm on PATH, and the SDK installed from npm (Install,
// into a folder the caller keeps: CacheDir, in the user cache).
//
// # Caveats
//
//   - The SDK is pinned (Version): another release may answer otherwise,
//     and a test must not change what passes with it.
//   - A Client serves one request at a time, in order.
package mcpnode

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The SDK the client is, as npm names it.
const (
	Package = "@modelcontextprotocol/sdk"
	Version = "1.32.2"
)

//go:embed client.cjs
var driver []byte

// ErrNoNode is returned when node or npm is not on PATH.
var ErrNoNode = errors.New("node and npm are needed (apt-get install nodejs npm)")

// Install makes sure the SDK is installed under dir
// (dir/node_modules/@modelcontextprotocol/sdk): npm installs it into a
// folder beside dir, renamed into place when complete, so that an
// interrupted install is never taken for one. Errors: ErrNoNode, or
// npm's failure with its last lines (the registry out of reach, say).
func Install(ctx context.Context, dir string) error {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return ErrNoNode
		}
	}
	if installed(dir) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", tmp, Package+"@"+Version).CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm install %s@%s (is the registry reachable?): %v\n%s", Package, Version, err, lastLines(string(out), 4))
	}
	if err := os.Rename(tmp, dir); err != nil && !installed(dir) { // another install may have won
		return err
	}
	return nil
}

func installed(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", Package, "package.json"))
	if err != nil {
		return false
	}
	var p struct{ Version string }
	return json.Unmarshal(b, &p) == nil && p.Version == Version
}

// CacheDir is where grove's tests and grove-bench keep the SDK (see
// Install): grove-test/mcp-sdk-VERSION in the user cache directory (the
// temporary directory when there is none), beside the tests' other npm
// packages.
func CacheDir() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "grove-test", "mcp-sdk-"+Version)
}

// Server is the command a Client starts and talks to over its stdin and
// stdout.
type Server struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"` // the server's whole environment (the SDK's default when empty)
	Dir     string            `json:"cwd,omitempty"`
}

// Client is the SDK's Client in a node process, connected to a server.
type Client struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
}

// lockedBuffer is a bytes.Buffer that os/exec may write from its own
// goroutine while the client reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Start starts node with the driver, the SDK loaded from dir (see
// Install), connected to server.
func Start(ctx context.Context, dir string, server Server) (*Client, error) {
	script := filepath.Join(dir, "grove-mcp-client.cjs")
	if b, err := os.ReadFile(script); err != nil || !bytes.Equal(b, driver) {
		if err := os.WriteFile(script, driver, 0o644); err != nil {
			return nil, err
		}
	}
	spec, err := json.Marshal(server)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "GROVE_MCP_SDK="+dir, "GROVE_MCP_SERVER="+string(spec))
	c := &Client{cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = c.stderr
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = bufio.NewReaderSize(out, 1<<20)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

// Tool is one tool as tools/list gives it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations json.RawMessage `json:"annotations"`
}

// Listing is tools/list's answer with what initialize said.
type Listing struct {
	Tools        []Tool          `json:"tools"`
	Server       json.RawMessage `json:"server"`
	Instructions string          `json:"instructions"`
}

// Result is a tools/call result.
type Result struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// Text is the text of the result's first content block.
func (r *Result) Text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// ListTools lists the server's tools.
func (c *Client) ListTools() (*Listing, error) {
	var l Listing
	return &l, c.do(map[string]any{"op": "list"}, &l)
}

// Call calls a tool.
func (c *Client) Call(name string, args any) (*Result, error) {
	var out struct {
		Result *Result `json:"result"`
	}
	if err := c.do(map[string]any{"op": "call", "name": name, "arguments": args}, &out); err != nil {
		return nil, err
	}
	return out.Result, nil
}

// Time calls a tool n times, one after another, and returns each call's
// round trip as the client measured it (performance.now() around
// callTool). A call that is an error fails it.
func (c *Client) Time(name string, args any, n int) ([]time.Duration, error) {
	var out struct {
		MS []float64 `json:"ms"`
	}
	if err := c.do(map[string]any{"op": "time", "name": name, "arguments": args, "n": n}, &out); err != nil {
		return nil, err
	}
	ds := make([]time.Duration, len(out.MS))
	for i, ms := range out.MS {
		ds[i] = time.Duration(ms * float64(time.Millisecond))
	}
	return ds, nil
}

// Pages calls a tool, then again with each next_cursor until the last
// page, n times, and returns how long each whole sequence took and how
// many pages it was. A page that is an error fails it.
func (c *Client) Pages(name string, args any, n int) ([]time.Duration, int, error) {
	var out struct {
		MS    []float64 `json:"ms"`
		Pages int       `json:"pages"`
	}
	if err := c.do(map[string]any{"op": "pages", "name": name, "arguments": args, "n": n}, &out); err != nil {
		return nil, 0, err
	}
	ds := make([]time.Duration, len(out.MS))
	for i, ms := range out.MS {
		ds[i] = time.Duration(ms * float64(time.Millisecond))
	}
	return ds, out.Pages, nil
}

// do sends one request and decodes its answer into v.
func (c *Client) do(req any, v any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("mcp client: %v; its stderr: %s", err, lastLines(c.stderr.String(), 10))
	}
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("mcp client: %v; its stderr: %s", err, lastLines(c.stderr.String(), 10))
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(line, &e) == nil && e.Error != "" {
		return fmt.Errorf("mcp client: %s", e.Error)
	}
	return json.Unmarshal(line, v)
}

// Close closes the client (and so the server's stdin) and waits for node
// to exit. Stderr is what node and the server wrote there.
func (c *Client) Close() (stderr string, err error) {
	c.in.Close()
	err = c.cmd.Wait()
	return c.stderr.String(), err
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
