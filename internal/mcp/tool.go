package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

// Paging are every tool's paging arguments (SPEC §12: a byte budget per
// call, a cursor to continue).
type Paging struct {
	Budget int    `json:"budget,omitempty" jsonschema:"the most bytes the answer's JSON may take (1024 to 1048576; default 16384): a longer answer comes in pages, each with page {from, count, of} and, while more remain, next_cursor"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the page before, to get the next page; give it with the same other arguments as that call (budget may change)"`
}

func (p *Paging) paging() *Paging { return p }

// answer is what a tool's build gives: the document, how it is paged,
// what a cursor keeps of the first page, and notes for the caller (grove
// says them on stderr).
type answer struct {
	doc     any                       // a jsondoc document (a struct), split with jsondoc.Split
	write   func(*bytes.Buffer) error // or this writes it (the tree's own writers)
	parts   []*part                   // or these are it (messages, read page by page)
	close   func() error              // called once the page is made
	paging  paging
	leaf    string // path, messages, context: the leaf the pages come from
	entries int    // tree: the session's entries
	notes   []string
	// snapshot: the pages after the first are cut from the answer the
	// first was (kept by the server while no other listing is asked for),
	// not built again: a listing costs its whole once, not once a page,
	// and its pages neither repeat nor leave out an element.
	snapshot bool
}

// tool is one of grove's tools: its name, description, the defaults its
// input schema gives, what an error is about, and how it answers.
type tool[In any] struct {
	name, description string
	defaults          map[string]any
	more              map[string]string // said after an argument's own description
	asked             func(*In) asked
	build             func(ctx context.Context, a *archive.Archive, in *In, c *cursor) (*answer, error)
}

// add registers t with s: its input schema from In's fields and their
// jsonschema tags (the SDK's inference), with t's defaults; the SDK
// checks each call's arguments against it (an argument of the wrong type
// or name is an isError result before t sees it).
func add[In any, P interface {
	*In
	paging() *Paging
}](s *Server, t tool[In]) error {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("the input schema of %s: %w", t.name, err)
	}
	for name, v := range t.defaults {
		raw, _ := json.Marshal(v)
		schema.Properties[name].Default = raw
	}
	for name, more := range t.more {
		schema.Properties[name].Description += more
	}
	s.args[t.name] = schema.PropertyOrder
	no := false
	sdk.AddTool(s.sdk, &sdk.Tool{Name: t.name, Description: t.description, InputSchema: schema,
		Annotations: &sdk.ToolAnnotations{Title: "grove " + t.name, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			return s.call(ctx, t.name, &in, P(&in).paging(), func(ctx context.Context, a *archive.Archive, c *cursor) (*answer, error) {
				return t.build(ctx, a, &in, c)
			}, t.asked(&in)), nil, nil
		})
	return nil
}

// call answers one call: it checks the paging arguments and the cursor,
// builds the document over the index and cuts the page asked for.
func (s *Server) call(ctx context.Context, name string, in any, pg *Paging, build func(context.Context, *archive.Archive, *cursor) (*answer, error), who asked) *sdk.CallToolResult {
	p := *pg
	*pg = Paging{}
	args, err := json.Marshal(in) // the call's arguments, budget and cursor aside
	*pg = p
	if err != nil {
		return failure(err, who)
	}
	var c *cursor
	if p.Cursor != "" {
		cc, err := parseCursor(p.Cursor)
		if err != nil {
			return failure(err, who)
		}
		if cc.Tool != name {
			return failure(usage("that cursor goes on with an answer of %s, not of %s", cc.Tool, name), who)
		}
		if !bytes.Equal(cc.Args, args) {
			return failure(usage("that cursor goes on with a call of other arguments: %s; give them as they were, with the cursor (budget may change)", clip(string(cc.Args), 2000)), who)
		}
		c = &cc
	}
	budget := p.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget < MinBudget || budget > MaxBudget {
		return failure(usage("budget: want %d to %d bytes, got %d", MinBudget, MaxBudget, budget), who)
	}
	a, err := s.archive(ctx)
	if err != nil {
		return failure(err, who)
	}
	ans, kept := s.snapshotFor(name, args, c)
	var ps []*part
	if ans != nil {
		ps = partsOf(kept)
	} else {
		if ans, err = build(ctx, a, c); err != nil {
			return failure(archive.Explain(s.opts.DB, err, "grove mcp"), who)
		}
		ps = ans.parts
	}
	if ans.close != nil {
		defer ans.close()
	}
	if ps == nil {
		var ms []jsondoc.Member
		if ans.write != nil {
			var doc bytes.Buffer
			if err = ans.write(&doc); err == nil {
				ms, err = members(doc.Bytes(), ans.paging.lists())
			}
		} else {
			ms, err = jsondoc.Split(ans.doc, ans.paging.lists()...)
		}
		if err != nil {
			return failure(err, who)
		}
		ps = partsOf(ms)
		s.keep(name, args, ans, ms)
	}
	at := 0
	if c != nil {
		at = c.At
	}
	next := func(n int) string {
		return cursor{Tool: name, Args: args, At: n, Leaf: ans.leaf, Entries: ans.entries}.String()
	}
	page, err := ans.paging.page(ps, at, budget, next)
	if te := (*toolError)(nil); errors.As(err, &te) && te.obj.Code == "over_budget" && ans.paging.hint != "" {
		te.obj.Message += "; " + ans.paging.hint
	}
	if err != nil {
		return failure(archive.Explain(s.opts.DB, err, "grove mcp"), who)
	}
	content := []sdk.Content{&sdk.TextContent{Text: string(page)}}
	if len(ans.notes) > 0 {
		content = append(content, &sdk.TextContent{Text: "grove: " + strings.Join(ans.notes, "\ngrove: ")})
	}
	return &sdk.CallToolResult{Content: content, StructuredContent: json.RawMessage(page)}
}

// checkDialect refuses a dialect that names none of archive.Dialects.
func checkDialect(d string) error {
	if d == "" || slices.Contains(archive.Dialects, archive.Dialect(d)) {
		return nil
	}
	var names []string
	for _, x := range archive.Dialects {
		names = append(names, string(x))
	}
	return usage("dialect: unknown dialect %q; the dialects are %s", d, strings.Join(names, ", "))
}

// workspace is the filter a workspace argument means (SPEC §3.3,
// Archive.WorkspaceFilter): "" for none; a relative one is from grove
// mcp's working directory.
func workspace(ctx context.Context, a *archive.Archive, ws string) (string, error) {
	if ws == "" {
		return "", nil
	}
	if strings.TrimSpace(ws) == "" {
		return "", usage("workspace: want a directory, not blanks; leave workspace out for every workspace")
	}
	return a.WorkspaceFilter(ctx, ws)
}

// needSession refuses a call without the session it reads.
func needSession(s string) error {
	if strings.TrimSpace(s) == "" {
		return usage("session: want a session's id, a unique prefix of its id (4+ characters) or its file's path, as sessions lists them")
	}
	return nil
}

// argumentErrors makes the SDK's own refusals of a call's arguments (a
// wrong type, an unknown name: isError results of text alone) grove's
// error results, code usage, naming the arguments the tool takes.
func (s *Server) argumentErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*sdk.CallToolResult)
		if err != nil || !ok || !r.IsError || r.StructuredContent != nil {
			return res, err
		}
		var text []string
		for _, c := range r.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		msg := strings.Join(text, "; ")
		if call, ok := req.(*sdk.CallToolRequest); ok && call.Params != nil {
			if names := s.args[call.Params.Name]; names != nil {
				msg += "; " + call.Params.Name + " takes " + strings.Join(names, ", ")
			}
		}
		return failure(usage("%s", msg), asked{}), nil
	}
}

// snapshotFor is the answer a cursor call of tool with args goes on with
// when the server kept it (keep), and its members: the listing the first
// page was cut from; nil when it has none for that call, or c is nil (a
// first page is always built anew).
func (s *Server) snapshotFor(tool string, args []byte, c *cursor) (*answer, []jsondoc.Member) {
	if c == nil {
		return nil, nil
	}
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	if s.last == nil || s.last.tool != tool || !bytes.Equal(s.last.args, args) {
		return nil, nil
	}
	return &answer{paging: s.last.pg, notes: s.last.notes, snapshot: true}, s.last.ms
}

// keep keeps the split answer ms of a first page of a listing (answer
// snapshot) for the pages after it, in place of the one kept before; a
// larger one than maxSnapshot is not kept (its pages are built anew).
func (s *Server) keep(tool string, args []byte, ans *answer, ms []jsondoc.Member) {
	if !ans.snapshot {
		return
	}
	size := 0
	for _, m := range ms {
		size += len(m.Value)
		for _, e := range m.Elems {
			size += len(e)
		}
	}
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	s.last = nil
	if size <= maxSnapshot {
		s.last = &snapshot{tool: tool, args: args, ms: ms, pg: ans.paging, notes: ans.notes}
	}
}
