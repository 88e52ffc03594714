package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

// Options configure a Server.
type Options struct {
	// DB is the index, as --db names it: a file or a PostgreSQL URL.
	DB string
	// Source is --source: in a team's index, the machine whose session an
	// id or path means and whose sessions are listed (SPEC §10); "" for
	// this machine's host name where that matters.
	Source string
	// Grove is how a hit's open commands start: "grove", or "grove --db
	// INDEX" when DB is not the index a plain grove opens (as grove
	// search's).
	Grove string
	// Version is grove's version, told to clients.
	Version string
}

// Server is grove mcp's server: the SDK's, with grove's tools, over one
// archive opened when a call first needs it.
type Server struct {
	opts Options
	sdk  *sdk.Server

	args map[string][]string // each tool's argument names, in order

	mu sync.Mutex
	a  *archive.Archive

	// last is the listing the last first page was cut from, which the
	// pages after it are cut from too (answer.snapshot).
	lastMu sync.Mutex
	last   *snapshot
}

// snapshot is a listing's whole answer, split, kept for its next pages:
// the tool and arguments of the call that made it.
type snapshot struct {
	tool  string
	args  []byte
	ms    []jsondoc.Member
	pg    paging
	notes []string
}

// maxSnapshot is the largest answer, in bytes of its members, kept for
// the pages after the first.
const maxSnapshot = 64 << 20

// instructions is what the server tells a client about itself (pi lists
// its first line with the server; other clients show it to the model).
const instructions = `grove: search and read the user's past coding-agent sessions (pi, Claude Code, Codex, plain JSONL) from grove's index, read-only.
search finds entries by what was said; sessions, workspaces, leaves and branches list; path, messages, context and tree read one session at one leaf (a leaf is any entry id: the path to it is what is read; by default the session's active leaf). Every answer is grove's --json document of the same command. Answers are bounded by budget (bytes, default 16384): a longer one comes in pages, each with "page" and, while more remain, "next_cursor" to pass as cursor with the same arguments. Errors are {"error":{"code","message",...}} results naming what was asked.`

// New makes the server with its tools (tools_*.go). Nothing is opened
// until a call needs the index. The error is a tool's input schema that
// the SDK's inference refuses (a fault of grove's, which its tests catch).
func New(o Options) (*Server, error) {
	s := &Server{opts: o, args: map[string][]string{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "grove", Title: "grove: coding-agent sessions", Version: o.Version},
		&sdk.ServerOptions{Instructions: instructions, Capabilities: &sdk.ServerCapabilities{}})
	for _, add := range []func() error{s.addSearchTool, s.addListTools, s.addSessionTools} {
		if err := add(); err != nil {
			return nil, fmt.Errorf("grove mcp: %w", err)
		}
	}
	s.sdk.AddReceivingMiddleware(s.argumentErrors)
	return s, nil
}

// Run serves one client over t (grove mcp: stdin and stdout) until the
// client goes or ctx is done; the index is closed after. The error is
// the connection's (nil when the client closed it).
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	defer s.close()
	err := s.sdk.Run(ctx, t)
	if errors.Is(err, context.Canceled) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return err
}

// Connect serves one client over t without waiting (for tests with the
// SDK's in-memory transport); closing the session ends it.
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.sdk.Connect(ctx, t, nil)
}

// Close closes the index, if a call opened it.
func (s *Server) Close() error { return s.close() }

func (s *Server) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.a == nil {
		return nil
	}
	err := s.a.Close()
	s.a = nil
	return err
}

// archive is the index, opened for reading on the first call that needs
// it (archive.OpenExisting: never created, never written; no writer lock
// is taken). An index that is not there yet (no_index) is tried again on
// the next call, so that grove mcp may start before the first grove index.
func (s *Server) archive(ctx context.Context) (*archive.Archive, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.a != nil {
		return s.a, nil
	}
	a, err := archive.OpenExisting(ctx, s.opts.DB, s.opts.Source)
	if err != nil {
		return nil, archive.Explain(s.opts.DB, err, "grove mcp")
	}
	s.a = a
	return a, nil
}

// failure is the isError result of err: SPEC §8's error object as the
// structured result and as text, {"error":{...}}.
func failure(err error, asked asked) *sdk.CallToolResult {
	var te *toolError
	obj := jsondoc.ErrorOf(err)
	extra := ""
	if errors.As(err, &te) {
		obj, extra = te.obj, te.cursor
	}
	if errors.Is(err, context.Canceled) {
		obj.Code, obj.Message = "interrupted", "the call was cancelled"
	}
	// An error about the session or entry asked for names it, whatever
	// the layer below said (SPEC §12).
	if asked.session != "" && obj.Session == "" && sessionCode[obj.Code] {
		obj.Session = asked.session
	}
	if asked.leaf != "" && obj.ID == "" && obj.Code == "unknown_entry" {
		obj.ID = asked.leaf
	}
	type withCursor struct {
		jsondoc.Error
		Cursor string `json:"cursor,omitempty"`
	}
	var b bytes.Buffer
	jsondoc.Write(&b, struct {
		Error withCursor `json:"error"`
	}{withCursor{obj, extra}})
	doc := bytes.TrimSpace(b.Bytes())
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(doc)}}, StructuredContent: json.RawMessage(doc)}
}

// sessionCode are the codes of errors about one session or its entries.
var sessionCode = map[string]bool{
	"unknown_session": true, "ambiguous_session": true, "unknown_entry": true, "stale_index": true,
	"missing_parent": true, "cycle": true, "duplicate_id": true, "unsupported_compression": true, "io_error": true,
}

// asked is what a call named: the session and leaf an error is about.
type asked struct{ session, leaf string }
