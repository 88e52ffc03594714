package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/mcpnode"
	"github.com/grove-sessions/grove/internal/testutil"
)

// mcpFixture is an index of copies of testdata's sessions of every
// dialect (and the damaged cases), and grove mcp over it under the
// official TypeScript client.
type mcpFixture struct {
	root, db string
	c        *mcpnode.Client
}

func mustMCPFixture(t *testing.T, dirs ...string) *mcpFixture {
	t.Helper()
	f := &mcpFixture{root: t.TempDir(), db: filepath.Join(t.TempDir(), "index.db")}
	copyTree(t, f.root, dirs...)
	if _, err := runGrove(t, f.db, "index", "--root", f.root); err != nil {
		t.Fatal(err)
	}
	f.c = startMCP(t, f.db, f.root)
	return f
}

// The tools of SPEC §12, listed by the official client, each taking the
// flags of the grove command of its name (--json and --source aside: the
// answer is JSON, the source is grove mcp's), its positional arguments,
// and budget and cursor; every argument described.
func TestMCP_ToolsList(t *testing.T) {
	f := mustMCPFixture(t, "pi")
	l, err := f.c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	positional := map[string][]string{"search": {"query"}, "path": {"session", "leaf"}, "messages": {"session", "leaf"},
		"context": {"session", "leaf"}, "tree": {"session"}}
	app := newApp(&env{})
	var names []string
	for _, tool := range l.Tools {
		names = append(names, tool.Name)
		cmd := app.Command(tool.Name)
		if cmd == nil {
			t.Errorf("tool %s: grove has no command of that name", tool.Name)
			continue
		}
		want := append([]string{"budget", "cursor"}, positional[tool.Name]...)
		for _, fl := range cmd.Flags {
			if n := fl.Names()[0]; n != "json" && n != "source" && n != "help" {
				want = append(want, n)
			}
		}
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type        any    `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			t.Fatalf("tool %s: schema %s: %v", tool.Name, tool.InputSchema, err)
		}
		var got []string
		for name, p := range schema.Properties {
			got = append(got, name)
			if p.Type == nil || len(p.Description) < 20 {
				t.Errorf("tool %s: argument %s has no type or too short a description: %+v", tool.Name, name, p)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("tool %s takes %v; grove %s takes %v", tool.Name, got, tool.Name, want)
		}
		if req := positional[tool.Name]; len(req) > 0 && !slices.Equal(schema.Required, req[:1]) {
			t.Errorf("tool %s requires %v, want %v", tool.Name, schema.Required, req[:1])
		}
		if !strings.Contains(string(tool.Annotations), `"readOnlyHint":true`) || len(tool.Description) < 100 {
			t.Errorf("tool %s: annotations %s, description %q", tool.Name, tool.Annotations, tool.Description)
		}
	}
	slices.Sort(names)
	if want := []string{"branches", "context", "leaves", "messages", "path", "search", "sessions", "tree", "workspaces"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if !strings.Contains(l.Instructions, "next_cursor") || !strings.Contains(string(l.Server), `"name":"grove"`) {
		t.Errorf("initialize: server %s, instructions %q", l.Server, l.Instructions)
	}
}

// answerAsCLI checks one call against grove's command line: the same
// JSON (after the same canonicalisation) and the very bytes grove writes;
// an error has the code and message of grove's error document. messages
// adds entryIds, checked against grove path's ids. The call asks for the
// largest budget, so that the answer is one page (paging is
// TestMCP_Paging1000Entries').
func answerAsCLI(t *testing.T, f *mcpFixture, tool string, args map[string]any) {
	t.Helper()
	call := map[string]any{"budget": 1 << 20}
	for k, v := range args {
		call[k] = v
	}
	r, err := f.c.Call(tool, call)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	cli, status := groveJSON(t, f.db, f.root, cliArgs(tool, args)...)
	if r.IsError != (status != 0) {
		t.Fatalf("%s %v: isError %v, grove exit status %d:\n mcp %s\ngrove %s", tool, args, r.IsError, status, r.Text(), cli)
	}
	if canonicalJSON(t, []byte(r.Text())) != canonicalJSON(t, r.StructuredContent) {
		t.Errorf("%s %v: the text is not the structured result", tool, args)
	}
	if r.IsError {
		var m, g struct{ Error map[string]any }
		json.Unmarshal(r.StructuredContent, &m)
		json.Unmarshal(cli, &g)
		if m.Error["code"] != g.Error["code"] || m.Error["message"] != g.Error["message"] {
			t.Errorf("%s %v: error %v, grove's %v", tool, args, m.Error, g.Error)
		}
		return
	}
	got := r.StructuredContent
	if strings.Contains(r.Text(), `"next_cursor":`) {
		t.Fatalf("%s %v: the answer does not fit 1 MiB: the test's sessions are too large", tool, args)
	}
	if tool == "messages" {
		var doc map[string]json.RawMessage
		json.Unmarshal(got, &doc)
		var ids []string
		var msgs []json.RawMessage
		json.Unmarshal(doc["entryIds"], &ids)
		json.Unmarshal(doc["messages"], &msgs)
		pathArgs := map[string]any{"session": args["session"]}
		if l, ok := args["leaf"]; ok {
			pathArgs["leaf"] = l
		}
		out, _ := groveJSON(t, f.db, f.root, cliArgs("path", pathArgs)...)
		var p struct{ Path []string }
		json.Unmarshal(out, &p)
		if len(ids) != len(msgs) || !inOrder(ids, p.Path) {
			t.Errorf("messages %v: entryIds %v are not %d entries of the path %v in order", args, ids, len(msgs), p.Path)
		}
		delete(doc, "entryIds")
		got, _ = json.Marshal(doc)
	} else if r.Text()+"\n" != string(cli) {
		t.Errorf("%s %v: not grove's bytes:\n mcp %.500s\ngrove %.500s", tool, args, r.Text(), cli)
	}
	if canonicalJSON(t, got) != canonicalJSON(t, cli) {
		t.Errorf("%s %v:\n mcp %.800s\ngrove %.800s", tool, args, got, cli)
	}
}

// inOrder reports whether every id of sub is in list, in that order.
func inOrder(sub, list []string) bool {
	i := 0
	for _, id := range sub {
		for i < len(list) && list[i] != id {
			i++
		}
		if i == len(list) {
			return false
		}
		i++
	}
	return true
}

// Each tool answers what the grove command of its name answers with
// --json, for the same arguments: every session of every dialect, at its
// active leaf and at another, every listing and search filter, and the
// errors of damaged sessions.
func TestMCP_AnswersAsCLI(t *testing.T) {
	f := mustMCPFixture(t, "pi", "plain", "messages", "claude", "codex", "cases")
	out, _ := groveJSON(t, f.db, f.root, "sessions")
	var sessions struct {
		Sessions []struct {
			ID, Path, Workspace string
			Entries             int
		}
	}
	if err := json.Unmarshal(out, &sessions); err != nil || len(sessions.Sessions) < 10 {
		t.Fatalf("sessions: %s (%v)", out, err)
	}
	for _, s := range sessions.Sessions {
		if s.Entries == 0 {
			continue
		}
		out, _ := groveJSON(t, f.db, f.root, "leaves", "--session="+s.Path)
		var leaves struct{ Leaves []struct{ ID string } }
		json.Unmarshal(out, &leaves)
		for _, one := range []map[string]any{{"session": s.Path}, {"session": s.Path, "leaf": leaves.Leaves[len(leaves.Leaves)-1].ID}} {
			for _, tool := range []string{"path", "messages", "context"} {
				answerAsCLI(t, f, tool, one)
			}
		}
		answerAsCLI(t, f, "context", map[string]any{"session": s.Path, "llm": true})
		answerAsCLI(t, f, "tree", map[string]any{"session": s.Path})
		answerAsCLI(t, f, "tree", map[string]any{"session": s.Path, "flat": true, "full": true})
		answerAsCLI(t, f, "tree", map[string]any{"session": s.Path, "depth": 1})
		answerAsCLI(t, f, "leaves", map[string]any{"session": s.Path})
		answerAsCLI(t, f, "branches", map[string]any{"session": s.Path})
	}
	ws := sessions.Sessions[0].Workspace
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"sessions", map[string]any{}},
		{"sessions", map[string]any{"dialect": "claude"}},
		{"sessions", map[string]any{"workspace": ws, "first": "the"}},
		{"workspaces", map[string]any{}},
		{"workspaces", map[string]any{"dialect": "pi"}},
		{"leaves", map[string]any{}},
		{"leaves", map[string]any{"workspace": ws, "dialect": "pi"}},
		{"branches", map[string]any{}},
		{"search", map[string]any{"query": "the"}},
		{"search", map[string]any{"query": "the", "limit": 50, "offset": 3, "sort": "relevance"}},
		{"search", map[string]any{"query": "the", "role": []string{"user", "assistant"}, "type": []string{"message"}, "branch": "active"}},
		{"search", map[string]any{"query": "test*", "dialect": "pi", "since": "2026-01-01", "until": "2027-01-01", "no-dedupe": true}},
		{"search", map[string]any{"query": `"JWT" -nothing`, "workspace": ws}},
		{"search", map[string]any{"query": "登录"}},
		{"search", map[string]any{"query": "*"}},
	} {
		answerAsCLI(t, f, c.tool, c.args)
	}
}

// Pages of a 1,000-entry session's messages, path and search hits, at a
// small budget, make grove's whole answer again: nothing cut, repeated or
// left out.
func TestMCP_Paging1000Entries(t *testing.T) {
	root := t.TempDir()
	file := testutil.MustWriteFile(t, root, "long.jsonl", testutil.PiSessionEntries(1000, 1000))
	db := filepath.Join(t.TempDir(), "index.db")
	if _, err := runGrove(t, db, "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	f := &mcpFixture{root: root, db: db, c: startMCP(t, db, root)}
	for _, c := range []struct {
		tool   string
		args   map[string]any
		budget int
		list   string
	}{
		{"messages", map[string]any{"session": file}, 24 << 10, "messages"},
		{"path", map[string]any{"session": file}, 1024, "path"},
		{"context", map[string]any{"session": file}, 24 << 10, "messages"},
		{"search", map[string]any{"query": "the", "limit": 400}, 8 << 10, "hits"},
		{"tree", map[string]any{"session": file, "flat": true, "full": true}, 4 << 10, "nodes"},
	} {
		var elems []json.RawMessage
		var ids []string
		var first map[string]json.RawMessage
		pages := 0
		for cursor := ""; ; pages++ {
			args := map[string]any{"budget": c.budget}
			for k, v := range c.args {
				args[k] = v
			}
			if cursor != "" {
				args["cursor"] = cursor
			}
			r, err := f.c.Call(c.tool, args)
			if err != nil || r.IsError {
				t.Fatalf("%s page %d: %v %s", c.tool, pages, err, r.Text())
			}
			if len(r.Text()) > c.budget {
				t.Fatalf("%s page %d: %d bytes, over the budget of %d", c.tool, pages, len(r.Text()), c.budget)
			}
			var doc map[string]json.RawMessage
			json.Unmarshal([]byte(r.Text()), &doc)
			var more []json.RawMessage
			json.Unmarshal(doc[c.list], &more)
			elems = append(elems, more...)
			var more2 []string
			json.Unmarshal(doc["entryIds"], &more2)
			ids = append(ids, more2...)
			if first == nil {
				first = doc
			}
			cursor = ""
			json.Unmarshal(doc["next_cursor"], &cursor)
			if cursor == "" {
				break
			}
		}
		if pages < 3 {
			t.Errorf("%s: %d pages: the test pages too little", c.tool, pages)
		}
		first[c.list], _ = json.Marshal(elems)
		delete(first, "page")
		delete(first, "next_cursor")
		if c.tool == "messages" {
			delete(first, "entryIds")
			if len(ids) != len(elems) {
				t.Errorf("messages: %d entryIds for %d messages", len(ids), len(elems))
			}
		}
		if c.tool == "context" {
			delete(first, "keptEntryIds") // compared below, whole
		}
		whole, _ := json.Marshal(first)
		cli, status := groveJSON(t, db, root, cliArgs(c.tool, c.args)...)
		if status != 0 {
			t.Fatalf("grove %s: %s", c.tool, cli)
		}
		if c.tool == "context" {
			var g map[string]json.RawMessage
			json.Unmarshal(cli, &g)
			delete(g, "keptEntryIds")
			cli, _ = json.Marshal(g)
		}
		if canonicalJSON(t, whole) != canonicalJSON(t, cli) {
			t.Errorf("%s: %d pages together are not grove's answer:\n got %.400s\nwant %.400s", c.tool, pages, whole, cli)
		}
	}
}

// Unknown and stale ids, and a bogus role, are isError results with
// grove's code, naming what was asked (and the roles).
func TestMCP_Errors(t *testing.T) {
	f := mustMCPFixture(t, "pi")
	file := filepath.Join(f.root, "pi", "v3-tree.jsonl")
	expect := func(tool string, args map[string]any, code string, says ...string) {
		t.Helper()
		r, err := f.c.Call(tool, args)
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Error map[string]any }
		if err := json.Unmarshal(r.StructuredContent, &e); err != nil || !r.IsError || e.Error["code"] != code {
			t.Fatalf("%s %v: isError %v, %s; want code %s", tool, args, r.IsError, r.StructuredContent, code)
		}
		for _, s := range says {
			if !strings.Contains(string(r.StructuredContent), s) {
				t.Errorf("%s %v: %s does not say %s", tool, args, r.StructuredContent, s)
			}
		}
	}
	expect("messages", map[string]any{"session": "nonesuch"}, "unknown_session", `"session":"nonesuch"`)
	expect("path", map[string]any{"session": file, "leaf": "nonesuch"}, "unknown_entry", `"id":"nonesuch"`, `"session":`+quote(file))
	expect("search", map[string]any{"query": "JWT", "role": []string{"bogus"}}, "usage", `no role \"bogus\"`, "user, assistant, toolResult")
	expect("search", map[string]any{"query": "JWT", "bogus": true}, "usage", "search takes query")
	appendLine(t, file, `{"type":"label","id":"late01","parentId":null,"timestamp":"2026-03-04T00:00:00.000Z","targetId":"x","label":"late"}`)
	for _, tool := range []string{"path", "messages", "context", "tree"} {
		expect(tool, map[string]any{"session": file}, "stale_index", "changed since it was indexed", `"session":`+quote(file))
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// appendLine appends one line to the file at path.
func appendLine(t *testing.T, path, line string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fmt.Fprintln(fh, line); err != nil {
		t.Fatal(err)
	}
}
