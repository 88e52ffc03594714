package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

// The nine tools of SPEC §12, each read-only, each with a description and
// an input schema that names the command line's filters.
func TestTools_List(t *testing.T) {
	f := mustFixture(t, nil, "pi")
	res, err := f.c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		required []string
		args     []string
	}{
		"search":     {[]string{"query"}, []string{"workspace", "session", "dialect", "role", "type", "since", "until", "branch", "sort", "limit", "offset", "no-dedupe"}},
		"sessions":   {nil, []string{"workspace", "dialect", "first", "all"}},
		"workspaces": {nil, []string{"workspace", "dialect"}},
		"leaves":     {nil, []string{"session", "workspace", "dialect", "all"}},
		"branches":   {nil, []string{"session", "workspace", "dialect", "all"}},
		"path":       {[]string{"session"}, []string{"leaf"}},
		"messages":   {[]string{"session"}, []string{"leaf"}},
		"context":    {[]string{"session"}, []string{"leaf", "llm"}},
		"tree":       {[]string{"session"}, []string{"full", "depth", "flat", "all"}},
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("tool %s: grove has no such tool", tool.Name)
			continue
		}
		if len(tool.Description) < 80 {
			t.Errorf("tool %s: description %q says too little for an agent", tool.Name, tool.Description)
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s: not marked read-only: %+v", tool.Name, tool.Annotations)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
			Additional *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" || s.Additional == nil || *s.Additional {
			t.Errorf("tool %s: schema %s is no closed object", tool.Name, schema)
		}
		if !slices.Equal(s.Required, w.required) {
			t.Errorf("tool %s: required %v, want %v", tool.Name, s.Required, w.required)
		}
		for _, a := range append(append(w.args, w.required...), "budget", "cursor") {
			var p struct {
				Type        any    `json:"type"`
				Description string `json:"description"`
			}
			if err := json.Unmarshal(s.Properties[a], &p); err != nil || p.Type == nil || len(p.Description) < 20 {
				t.Errorf("tool %s: argument %s is missing or undescribed: %s", tool.Name, a, s.Properties[a])
			}
		}
		if len(s.Properties) != len(w.args)+len(w.required)+2 {
			t.Errorf("tool %s: arguments %v, want %v and %v, budget, cursor", tool.Name, keys(s.Properties), w.required, w.args)
		}
	}
	if len(names) != len(want) {
		t.Errorf("tools %v, want the %d of SPEC §12", names, len(want))
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// An answer that fits its budget is the command line's document as it
// is: the same value jsondoc builds for the command.
func TestTools_AnswerIsTheDocument(t *testing.T) {
	f := mustFixture(t, nil, "pi")
	ctx := context.Background()
	a, err := archive.Open(ctx, f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sess := must(t, f.c, "sessions", map[string]any{})
	var list []jsondoc.Session
	if err := json.Unmarshal(sess["sessions"], &list); err != nil || len(list) != 3 {
		t.Fatalf("sessions: %s (%v)", sess["sessions"], err)
	}
	id := list[0].ID
	want := func(v any, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := jsondoc.WriteStream(&b, v); err != nil {
			t.Fatal(err)
		}
		return []byte(b.String())
	}
	doc := func(tool string, args any) []byte {
		t.Helper()
		r := call(t, f.c, tool, args)
		if r.error {
			t.Fatalf("%s: %s", tool, r.text)
		}
		return r.doc
	}
	for _, c := range []struct {
		tool string
		args any
		want []byte
	}{
		{"sessions", map[string]any{}, want(jsondoc.ListSessions(ctx, a, archive.Filter{}, ""))},
		{"leaves", map[string]any{"session": id}, want(jsondoc.ListLeaves(ctx, a, archive.Filter{Session: id}))},
		{"branches", map[string]any{}, want(jsondoc.ListBranches(ctx, a, archive.Filter{}))},
		{"workspaces", map[string]any{}, want(jsondoc.ListWorkspaces(ctx, a, "", ""))},
		{"path", map[string]any{"session": id}, want(jsondoc.PathTo(ctx, a, id, ""))},
		{"context", map[string]any{"session": id, "llm": true}, want(jsondoc.ContextAt(ctx, a, id, "", true))},
		{"search", map[string]any{"query": "JWT"}, want(jsondoc.RunSearch(ctx, a, archive.SearchOptions{Query: "JWT", Sort: "recent", Limit: 20}, jsondoc.Opener{Grove: "grove"}))},
	} {
		if got := doc(c.tool, c.args); !jsonEqual(t, got, c.want) {
			t.Errorf("%s %v:\n got %s\nwant %s", c.tool, c.args, got, c.want)
		}
	}
	// messages: the command's document and the entry of each message.
	m, err := jsondoc.MessagesTo(ctx, a, id, "")
	if err != nil {
		t.Fatal(err)
	}
	got := must(t, f.c, "messages", map[string]any{"session": id})
	var ids []string
	json.Unmarshal(got["entryIds"], &ids)
	if len(ids) != len(m.Messages) || len(ids) == 0 {
		t.Fatalf("messages: %d entryIds for %d messages", len(ids), len(m.Messages))
	}
	delete(got, "entryIds")
	whole, _ := json.Marshal(got)
	if w := want(m, nil); !jsonEqual(t, whole, w) {
		t.Errorf("messages without entryIds:\n got %s\nwant %s", whole, w)
	}
	// Each id is an entry of the path, in order, and its line holds that message.
	path := m.Of.Entries
	k := 0
	for i, id := range ids {
		for k < len(path) && path[k].EntryID != id {
			k++
		}
		if k == len(path) {
			t.Fatalf("entryIds[%d] = %s is not on the path after entryIds[%d]", i, id, i-1)
		}
	}
}

// A session or leaf that names nothing, or a file changed since it was
// indexed, is an isError result with grove's code, naming what was asked.
func TestTools_UnknownAndStale(t *testing.T) {
	f := mustFixture(t, nil, "pi")
	sess := must(t, f.c, "sessions", map[string]any{})
	var list []jsondoc.Session
	json.Unmarshal(sess["sessions"], &list)
	id, file := list[0].ID, list[0].Path
	for _, tool := range []string{"path", "messages", "context", "tree"} {
		e := errorObject(t, f.c, tool, map[string]any{"session": "nope-not-a-session"})
		if e["code"] != "unknown_session" || e["session"] != "nope-not-a-session" {
			t.Errorf("%s of an unknown session: %v", tool, e)
		}
		if tool == "tree" {
			continue
		}
		e = errorObject(t, f.c, tool, map[string]any{"session": id, "leaf": "no-such-entry"})
		if e["code"] != "unknown_entry" || e["id"] != "no-such-entry" || e["session"] != id {
			t.Errorf("%s of an unknown leaf: %v", tool, e)
		}
	}
	for _, tool := range []string{"leaves", "branches", "search"} {
		args := map[string]any{"session": "nope-not-a-session"}
		if tool == "search" {
			args["query"] = "JWT"
		}
		if e := errorObject(t, f.c, tool, args); e["code"] != "unknown_session" || e["session"] != "nope-not-a-session" {
			t.Errorf("%s in an unknown session: %v", tool, e)
		}
	}
	appendTo(t, file, []byte(`{"type":"label","id":"zz01","parentId":null,"timestamp":"2026-03-03T09:00:00.000Z","targetId":"x","label":"later"}`+"\n"))
	for _, tool := range []string{"path", "messages", "context", "tree"} {
		e := errorObject(t, f.c, tool, map[string]any{"session": id})
		if e["code"] != "stale_index" || e["session"] != id || e["path"] != file || !strings.Contains(e["message"].(string), "changed since it was indexed") {
			t.Errorf("%s of a changed file: %v", tool, e)
		}
	}
	// A listing says so of each leaf, and a hit has no snippet.
	leaves := must(t, f.c, "leaves", map[string]any{"session": id})
	if !strings.Contains(string(leaves["leaves"]), `"stale":true`) {
		t.Errorf("leaves of a changed file: %s", leaves["leaves"])
	}
}

// Arguments the command line would refuse are usage errors naming what
// is wrong and what would do; arguments the tool does not take are too.
func TestTools_BadArguments(t *testing.T) {
	f := mustFixture(t, nil, "pi")
	for _, c := range []struct {
		tool string
		args map[string]any
		says []string
	}{
		{"search", map[string]any{"query": "JWT", "role": []string{"bogus"}}, []string{`no role "bogus"`, "user, assistant, toolResult"}},
		{"search", map[string]any{"query": "JWT", "role": []string{"User"}}, []string{`did you mean "user"`}},
		{"search", map[string]any{"query": "JWT", "branch": "some"}, []string{"active, abandoned or all"}},
		{"search", map[string]any{"query": "JWT", "sort": "best"}, []string{"recent or relevance"}},
		{"search", map[string]any{"query": "JWT", "limit": 0}, []string{"limit must be 1 or more"}},
		{"search", map[string]any{"query": "JWT", "since": "yesterday-ish"}, []string{"since:"}},
		{"search", map[string]any{"query": "JWT", "since": "2026-03-04", "until": "2026-03-03"}, []string{"is not after since"}},
		{"search", map[string]any{"query": "  "}, []string{"query: want something"}},
		{"search", map[string]any{"query": "JWT", "colour": "red"}, []string{`"colour"`, "search takes query, workspace"}},
		{"search", map[string]any{"query": "JWT", "limit": "ten"}, []string{"limit", "integer"}},
		{"sessions", map[string]any{"dialect": "vim"}, []string{`unknown dialect "vim"`, "pi, plain, messages, claude, codex"}},
		{"sessions", map[string]any{"first": "  "}, []string{"first: want some text"}},
		{"leaves", map[string]any{"workspace": "   "}, []string{"workspace: want a directory"}},
		{"tree", map[string]any{"session": "5b7e", "depth": -1}, []string{"depth: want 0"}},
		{"path", map[string]any{}, []string{"session"}},
		{"path", map[string]any{"session": "5b7e", "budget": 10}, []string{"budget: want 1024 to 1048576"}},
		{"path", map[string]any{"session": "5b7e", "budget": 1 << 21}, []string{"budget: want 1024 to 1048576"}},
		{"path", map[string]any{"session": "5b7e", "cursor": "not-a-cursor"}, []string{"is none this server gave"}},
	} {
		e := errorObject(t, f.c, c.tool, c.args)
		if e["code"] != "usage" {
			t.Errorf("%s %v: code %v, want usage: %v", c.tool, c.args, e["code"], e)
		}
		for _, s := range c.says {
			if msg, _ := e["message"].(string); !strings.Contains(msg, s) {
				t.Errorf("%s %v: message %q does not say %q", c.tool, c.args, msg, s)
			}
		}
	}
}

// An index that is not there yet answers no_index, and the same server
// answers once grove index has made it.
func TestTools_IndexMadeLater(t *testing.T) {
	dir := t.TempDir()
	db := dir + "/later.db"
	c := mustConnect(t, db)
	if e := errorObject(t, c, "sessions", map[string]any{}); e["code"] != "no_index" || !strings.Contains(e["hint"].(string), "grove index") {
		t.Fatalf("sessions before the index: %v", e)
	}
	root := t.TempDir()
	writeSession(t, root, "s.jsonl", 3)
	mustIndex(t, db, root)
	sess := must(t, c, "sessions", map[string]any{})
	if !strings.Contains(string(sess["sessions"]), `"entries":3`) {
		t.Errorf("sessions after grove index: %s", sess["sessions"])
	}
}
