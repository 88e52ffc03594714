package archive_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// pureContext is SPEC §4.1 computed from the file alone: Load, PathTo,
// BuildContext.
func pureContext(t *testing.T, path, leaf string) *archive.Context {
	t.Helper()
	c, err := pureContextErr(t, path, leaf)
	if err != nil {
		t.Fatalf("BuildContext(%s, %q): %v", path, leaf, err)
	}
	return c
}

// pureContextErr is pureContext, with BuildContext's error.
func pureContextErr(t *testing.T, path, leaf string) (*archive.Context, error) {
	t.Helper()
	s, err := archive.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if leaf == "" {
		leaf = archive.ActiveLeaf(s.Dialect, s.Entries)
	}
	p, err := archive.PathTo(s.Entries, leaf)
	if err != nil {
		t.Fatalf("PathTo(%s, %q): %v", path, leaf, err)
	}
	version := 0
	if s.Header != nil {
		version = s.Header.Version
	}
	c, err := archive.BuildContext(p, version)
	if err != nil {
		return nil, err
	}
	c.Version = version
	return c, nil
}

// contextJSON renders a context as `grove context --json` does, for
// comparing and for failure messages.
func contextJSON(c *archive.Context) string {
	b, _ := json.Marshal(map[string]any{"messages": c.Messages, "keptEntryIds": c.KeptEntryIDs,
		"thinkingLevel": c.ThinkingLevel, "model": c.Model})
	return string(b)
}

// checkIndexEqualsPure indexes the files of dir and checks, for each leaf
// of each session, that the context by CTE and by the pure side agree
// (with and without --llm).
func checkIndexEqualsPure(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	a, leaves := mustIndexLeaves(t, dir)
	for _, l := range leaves {
		_, got, err := a.Context(ctx, l.Session.Path, l.EntryID)
		if l.Depth == nil { // a broken path: the same error both ways
			s, _ := archive.Load(l.Session.Path)
			_, perr := archive.PathTo(s.Entries, l.EntryID)
			if err == nil || perr == nil || answerOf(nil, err) != answerOf(nil, perr) {
				t.Errorf("Context(%s, %s) on a broken path: %v, PathTo: %v", l.Session.Path, l.EntryID, err, perr)
			}
			continue
		}
		want, perr := pureContextErr(t, l.Session.Path, l.EntryID)
		if err != nil || perr != nil { // a context pi cannot build: the same error both ways
			if err == nil || perr == nil || answerOf(nil, err) != answerOf(nil, perr) {
				t.Errorf("Context(%s, %s) = %v, pure %v", l.Session.Path, l.EntryID, err, perr)
			}
			continue
		}
		if g, w := contextJSON(got), contextJSON(want); g != w {
			t.Errorf("Context(%s, %s) by CTE =\n%s\nwant (pure)\n%s", filepath.Base(l.Session.Path), l.EntryID, g, w)
		}
		if g, w := contextJSON(got.ForLLM()), contextJSON(want.ForLLM()); g != w {
			t.Errorf("Context(%s, %s).ForLLM() by CTE =\n%s\nwant (pure)\n%s", filepath.Base(l.Session.Path), l.EntryID, g, w)
		}
	}
}

func TestContext_IndexEqualsPure(t *testing.T) {
	for _, dir := range []string{"pi", "plain", "pi-1.6"} {
		t.Run(dir, func(t *testing.T) { checkIndexEqualsPure(t, testutil.Testdata(t, dir)) })
	}
	t.Run("corpus", func(t *testing.T) { checkIndexEqualsPure(t, testutil.MustShared(t, "corpus/pi")) })
	t.Run("generated", func(t *testing.T) { checkIndexEqualsPure(t, mustGenerated(t)) })
}

// The expectations written down in testdata/pi/*.expected.txt.
func TestBuildContext_PiFixtures(t *testing.T) {
	type msgWant struct {
		index int    // position in Messages
		json  string // the message, exactly
	}
	tests := []struct {
		name, file, leaf string
		llm              bool
		kept             string
		thinking, model  string
		msgs             []msgWant
	}{
		{name: "v3 active leaf, branch summary", file: "pi/v3-tree.jsonl", leaf: "b7395fc2",
			kept:     "7c49e1b3 e1a8d05f 94b3c27e 2f6d8a41 b80e5c63 6a1f9e07 f20a9b6e 49e7f21c d1b6a058 6f2c8e93 0ae4d7b5 b7395fc2",
			thinking: `"medium"`, model: `{"provider":"openai","modelId":"gpt-5.1-codex"}`,
			msgs: []msgWant{{6, `{"role":"branchSummary","summary":"Tried jsonwebtoken: login() returned a signed JWT and the auth tests passed (8/8); refresh tokens and a logout endpoint were explored.","fromId":"6a1f9e07","timestamp":1772525040000}`}}},
		{name: "v3 active leaf --llm drops the !! bash run", file: "pi/v3-tree.jsonl", leaf: "b7395fc2", llm: true,
			kept:     "7c49e1b3 e1a8d05f 94b3c27e 2f6d8a41 b80e5c63 6a1f9e07 f20a9b6e d1b6a058 6f2c8e93 0ae4d7b5 b7395fc2",
			thinking: `"medium"`, model: `{"provider":"openai","modelId":"gpt-5.1-codex"}`,
			msgs: []msgWant{{6, `{"role":"user","content":[{"type":"text","text":"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nTried jsonwebtoken: login() returned a signed JWT and the auth tests passed (8/8); refresh tokens and a logout endpoint were explored.</summary>"}],"timestamp":1772525040000}`}}},
		{name: "v3 compaction keeps from firstKeptEntryId", file: "pi/v3-tree.jsonl", leaf: "1b3f5d9a",
			kept:     "be15d3f0 d5c80e6b 61f3a9c4 9e2b4d87 07f9a6c5 c2e48b1d 58ad03e9 1b3f5d9a",
			thinking: `"medium"`, model: `{"provider":"anthropic","modelId":"claude-sonnet-4-5"}`,
			msgs: []msgWant{
				{0, `{"role":"compactionSummary","summary":"## Goal\nJWT login for demo-app with unit tests.\n\n## Done\n- login() in src/auth.ts returns jwt.sign({ sub: user }, SECRET, { expiresIn: \"1h\" })\n- npm test -- auth: 8 passed","tokensBefore":51234,"timestamp":1772524925000}`},
				{2, `{"role":"custom","customType":"test-watcher","content":"auth tests: 8 passed, 0 failed","display":false,"details":{"suite":"auth","passed":8,"failed":0},"timestamp":1772524890400}`}}},
		{name: "v3 compaction --llm", file: "pi/v3-tree.jsonl", leaf: "1b3f5d9a", llm: true,
			kept:     "be15d3f0 d5c80e6b 61f3a9c4 9e2b4d87 07f9a6c5 c2e48b1d 58ad03e9 1b3f5d9a",
			thinking: `"medium"`, model: `{"provider":"anthropic","modelId":"claude-sonnet-4-5"}`,
			msgs: []msgWant{
				{0, `{"role":"user","content":[{"type":"text","text":"The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal\nJWT login for demo-app with unit tests.\n\n## Done\n- login() in src/auth.ts returns jwt.sign({ sub: user }, SECRET, { expiresIn: \"1h\" })\n- npm test -- auth: 8 passed\n</summary>"}],"timestamp":1772524925000}`},
				{1, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Ran `npm test -- auth`\\n```\\nPASS src/auth.test.ts\\n  ✓ login returns a token (9 ms)\\n\\nTests: 8 passed\\n```\"}],\"timestamp\":1772524889998}"},
				{2, `{"role":"user","content":[{"type":"text","text":"auth tests: 8 passed, 0 failed"}],"timestamp":1772524890400}`}}},
		{name: "v3 other branch of the compaction, unknown type", file: "pi/v3-tree.jsonl", leaf: "35c7e0da",
			kept:     "be15d3f0 d5c80e6b 61f3a9c4 9e2b4d87 7d0e2c86 35c7e0da",
			thinking: `"medium"`, model: `{"provider":"anthropic","modelId":"claude-sonnet-4-5"}`},
		{name: "v2 compaction after a branch summary", file: "pi/v2-branches.jsonl", leaf: "06c4a8d7",
			kept:     "f7c1e9d3 62c9f0a1 b4e7a3d6 0a5d8c1e 3a6e0b8f c19d7f24 94f2b1e6 06c4a8d7",
			thinking: `"off"`, model: `{"provider":"anthropic","modelId":"claude-sonnet-4-5"}`},
		{name: "v2 sibling leaf", file: "pi/v2-branches.jsonl", leaf: "e7a05c3b",
			kept:     "f7c1e9d3 62c9f0a1 b4e7a3d6 0a5d8c1e 3a6e0b8f c19d7f24 2b8e6d90 e7a05c3b",
			thinking: `"off"`, model: `{"provider":"anthropic","modelId":"claude-sonnet-4-5"}`},
		{name: "v2 hookMessage --llm", file: "pi/v2-branches.jsonl", leaf: "5f1b7d2e", llm: true,
			kept:     "3f9a1c20 7b2e4d91 c5d8e0f3 1e6f7a82 9d0c4b57 e2a4f6c8 4b8d1e39 a0c3e5f7",
			thinking: `"off"`, model: `{"provider":"anthropic","modelId":"claude-sonnet-4-5"}`,
			msgs: []msgWant{{7, `{"role":"user","content":[{"type":"text","text":"golangci-lint: 0 issues in cmd/server/main.go"}],"timestamp":1772460036006}`}}},
		{name: "v1 firstKeptEntryIndex counts the header as 0", file: "pi/v1-linear.jsonl", leaf: "L11",
			kept:     "L9 L7 L8 L10 L11",
			thinking: `"medium"`, model: `{"provider":"openai","modelId":"gpt-5.1-codex"}`,
			msgs: []msgWant{{0, `{"role":"compactionSummary","summary":"User asked what is in src/ (main.go, util.go); the typo \"Helo\" in main.go's greeting was fixed.","tokensBefore":18342,"timestamp":1772359500000}`}}},
		{name: "v1 --llm", file: "pi/v1-linear.jsonl", leaf: "L11", llm: true,
			kept:     "L9 L7 L8 L10 L11",
			thinking: `"medium"`, model: `{"provider":"openai","modelId":"gpt-5.1-codex"}`,
			msgs: []msgWant{{0, `{"role":"user","content":[{"type":"text","text":"The conversation history before this point was compacted into the following summary:\n\n<summary>\nUser asked what is in src/ (main.go, util.go); the typo \"Helo\" in main.go's greeting was fixed.\n</summary>"}],"timestamp":1772359500000}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := pureContext(t, testutil.Testdata(t, tt.file), tt.leaf)
			if tt.llm {
				c = c.ForLLM()
			}
			if got := strings.Join(c.KeptEntryIDs, " "); got != tt.kept {
				t.Errorf("keptEntryIds = %s, want %s", got, tt.kept)
			}
			if len(c.Messages) != len(c.KeptEntryIDs) {
				t.Errorf("%d messages for %d kept entry ids", len(c.Messages), len(c.KeptEntryIDs))
			}
			if got := string(c.ThinkingLevel); got != tt.thinking {
				t.Errorf("thinkingLevel = %s, want %s", got, tt.thinking)
			}
			if got, _ := json.Marshal(c.Model); string(got) != tt.model {
				t.Errorf("model = %s, want %s", got, tt.model)
			}
			for _, m := range tt.msgs {
				if m.index >= len(c.Messages) {
					t.Errorf("no message %d", m.index)
					continue
				}
				if got := string(c.Messages[m.index]); got != m.json {
					t.Errorf("message %d =\n%s\nwant\n%s", m.index, got, m.json)
				}
			}
		})
	}
}

// Small pi version 3 sessions for the rules of pi's buildSessionContext,
// after the cases of pi's session-manager tests.
func TestBuildContext_Rules(t *testing.T) {
	const t0 = "2026-01-01T00:00:0"
	u := func(id, parent, s string) string {
		return piLine("message", id, parent, t0+"1.000Z", msg("user", `"`+s+`"`))
	}
	asst := func(id, parent, provider, model string) string {
		return piLine("message", id, parent, t0+"2.000Z", `"message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"`+provider+`","model":"`+model+`"}`)
	}
	comp := func(id, parent, firstKept, summary string) string {
		return piLine("compaction", id, parent, t0+"3.000Z", `"summary":"`+summary+`"`, `"firstKeptEntryId":"`+firstKept+`"`, `"tokensBefore":100`)
	}
	tests := []struct {
		name     string
		lines    []string
		leaf     string // "" = active leaf
		llm      bool
		want     string // kept entry ids, then "|" and the roles
		thinking string
		model    string
	}{
		{name: "single user message", lines: []string{u("a", "", "hi")},
			want: "a|user", thinking: `"off"`, model: "null"},
		{name: "linear conversation", lines: []string{u("a", "", "hi"), asst("b", "a", "anthropic", "claude"), u("c", "b", "more")},
			want: "a b c|user assistant user", thinking: `"off"`, model: `{"provider":"anthropic","modelId":"claude"}`},
		{name: "thinking level changes, the last on the path wins", lines: []string{
			piLine("thinking_level_change", "t1", "", t0+"0.000Z", `"thinkingLevel":"high"`), u("a", "t1", "hi"),
			piLine("thinking_level_change", "t2", "a", t0+"0.000Z", `"thinkingLevel":"low"`),
			piLine("thinking_level_change", "t3", "a", t0+"0.000Z", `"thinkingLevel":"minimal"`)},
			leaf: "t2", want: "a|user", thinking: `"low"`, model: "null"},
		{name: "model_change after an assistant wins", lines: []string{
			u("a", "", "hi"), asst("b", "a", "anthropic", "claude"),
			piLine("model_change", "m", "b", t0+"4.000Z", `"provider":"openai"`, `"modelId":"gpt"`)},
			want: "a b|user assistant", thinking: `"off"`, model: `{"provider":"openai","modelId":"gpt"}`},
		{name: "assistant after a model_change wins", lines: []string{
			piLine("model_change", "m", "", t0+"0.000Z", `"provider":"openai"`, `"modelId":"gpt"`),
			u("a", "m", "hi"), asst("b", "a", "anthropic", "claude")},
			want: "a b|user assistant", thinking: `"off"`, model: `{"provider":"anthropic","modelId":"claude"}`},
		{name: "the other branch's model is not on the path", lines: []string{
			u("a", "", "hi"), asst("b", "a", "anthropic", "claude"), asst("c", "a", "openai", "gpt")},
			leaf: "b", want: "a b|user assistant", thinking: `"off"`, model: `{"provider":"anthropic","modelId":"claude"}`},
		{name: "compaction keeps from firstKeptEntryId", lines: []string{
			u("a", "", "1"), asst("b", "a", "p", "m"), u("c", "b", "2"), asst("d", "c", "p", "m"),
			comp("k", "d", "c", "sum"), u("e", "k", "3")},
			want: "k c d e|compactionSummary user assistant user", thinking: `"off"`, model: `{"provider":"p","modelId":"m"}`},
		{name: "firstKeptEntryId not on the path keeps nothing before", lines: []string{
			u("a", "", "1"), asst("b", "a", "p", "m"), u("x", "a", "other branch"),
			comp("k", "b", "x", "sum"), u("e", "k", "3")},
			want: "k e|compactionSummary user", thinking: `"off"`, model: `{"provider":"p","modelId":"m"}`},
		{name: "firstKeptEntryId after the compaction keeps nothing before", lines: []string{
			u("a", "", "1"), comp("k", "a", "e", "sum"), u("e", "k", "3")},
			want: "k e|compactionSummary user", thinking: `"off"`, model: "null"},
		{name: "compaction without firstKeptEntryId keeps nothing before", lines: []string{
			u("a", "", "1"), asst("b", "a", "p", "m"),
			piLine("compaction", "k", "b", t0+"3.000Z", `"summary":"sum"`, `"tokensBefore":100`), u("e", "k", "3")},
			want: "k e|compactionSummary user", thinking: `"off"`, model: `{"provider":"p","modelId":"m"}`},
		{name: "two compactions: only the last counts", lines: []string{
			u("a", "", "1"), u("b", "a", "2"), comp("k1", "b", "b", "first"),
			u("c", "k1", "3"), u("d", "c", "4"), comp("k2", "d", "c", "second"), u("e", "k2", "5")},
			want: "k2 c d e|compactionSummary user user user", thinking: `"off"`, model: "null"},
		{name: "second compaction keeping from before the first gives no message for the first", lines: []string{
			u("a", "", "1"), u("b", "a", "2"), comp("k1", "b", "b", "first"),
			u("c", "k1", "3"), comp("k2", "c", "b", "second"), u("e", "k2", "5")},
			want: "k2 b c e|compactionSummary user user user", thinking: `"off"`, model: "null"},
		{name: "branch summary with a summary becomes a message, an empty one does not", lines: []string{
			u("a", "", "1"),
			piLine("branch_summary", "s1", "a", t0+"5.000Z", `"fromId":"a"`, `"summary":"went elsewhere"`),
			piLine("branch_summary", "s2", "s1", t0+"5.000Z", `"fromId":"a"`, `"summary":""`), u("b", "s2", "2")},
			want: "a s1 b|user branchSummary user", thinking: `"off"`, model: "null"},
		{name: "custom_message with display false is still context; custom, label, session_info are not", lines: []string{
			u("a", "", "1"),
			piLine("custom_message", "cm", "a", t0+"6.000Z", `"customType":"watcher"`, `"content":"hidden note"`, `"display":false`),
			piLine("custom", "cu", "cm", t0+"6.000Z", `"customType":"state"`, `"data":{"x":1}`),
			piLine("label", "lb", "cu", t0+"6.000Z", `"targetId":"a"`, `"label":"start"`),
			piLine("session_info", "si", "lb", t0+"6.000Z", `"name":"n"`),
			piLine("future_type", "ft", "si", t0+"6.000Z"), u("b", "ft", "2")},
			want: "a cm b|user custom user", thinking: `"off"`, model: "null"},
		{name: "--llm: bash runs, custom and summaries become user messages", llm: true, lines: []string{
			u("a", "", "1"),
			piLine("message", "bx", "a", t0+"7.000Z", `"message":{"role":"bashExecution","command":"ls","output":"","exitCode":2,"cancelled":false,"truncated":false,"timestamp":1}`),
			piLine("message", "bq", "bx", t0+"7.000Z", `"message":{"role":"bashExecution","command":"secret","output":"x","exitCode":0,"excludeFromContext":true,"timestamp":2}`),
			piLine("custom_message", "cm", "bq", t0+"6.000Z", `"customType":"w"`, `"content":[{"type":"text","text":"block"}]`, `"display":true`),
			piLine("message", "zz", "cm", t0+"7.000Z", `"message":{"role":"mystery","content":"?"}`),
			u("b", "zz", "2")},
			want: "a bx cm b|user user user user", thinking: `"off"`, model: "null"},
		{name: "--llm: hookMessage in a version 3 file is no role pi knows", llm: true, lines: []string{
			u("a", "", "1"),
			piLine("message", "hk", "a", t0+"7.000Z", `"message":{"role":"hookMessage","customType":"w","content":"old spelling","display":true,"timestamp":3}`),
			u("b", "hk", "2")},
			want: "a b|user user", thinking: `"off"`, model: "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := `{"type":"session","version":3,"id":"ctx-test","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n"
			path := testutil.MustWriteFile(t, t.TempDir(), "s.jsonl", []byte(header+strings.Join(tt.lines, "")))
			c := pureContext(t, path, tt.leaf)
			if tt.llm {
				c = c.ForLLM()
			}
			var roles []string
			for _, m := range c.Messages {
				var r struct{ Role string }
				if err := json.Unmarshal(m, &r); err != nil {
					t.Fatalf("message %s: %v", m, err)
				}
				roles = append(roles, r.Role)
			}
			if got := strings.Join(c.KeptEntryIDs, " ") + "|" + strings.Join(roles, " "); got != tt.want {
				t.Errorf("context = %s, want %s\n%s", got, tt.want, contextJSON(c))
			}
			if got := string(c.ThinkingLevel); got != tt.thinking {
				t.Errorf("thinkingLevel = %s, want %s", got, tt.thinking)
			}
			if got, _ := json.Marshal(c.Model); string(got) != tt.model {
				t.Errorf("model = %s, want %s", got, tt.model)
			}
		})
	}
}

// pi's bashExecutionToText, case by case.
func TestForLLM_BashExecutionText(t *testing.T) {
	tests := []struct{ name, msg, want string }{
		{"output, exit 0", `"command":"ls","output":"a\nb","exitCode":0`, "Ran `ls`\n```\na\nb\n```"},
		{"no output", `"command":"true","output":"","exitCode":0`, "Ran `true`\n(no output)"},
		{"exit code", `"command":"false","output":"","exitCode":1`, "Ran `false`\n(no output)\n\nCommand exited with code 1"},
		{"null exit code", `"command":"x","output":"o","exitCode":null`, "Ran `x`\n```\no\n```"},
		{"cancelled wins over the exit code", `"command":"sleep 9","output":"","exitCode":130,"cancelled":true`, "Ran `sleep 9`\n(no output)\n\n(command cancelled)"},
		{"truncated with a path", `"command":"yes","output":"y","exitCode":0,"truncated":true,"fullOutputPath":"/tmp/o.log"`, "Ran `yes`\n```\ny\n```\n\n[Output truncated. Full output: /tmp/o.log]"},
		{"truncated without a path", `"command":"yes","output":"y","truncated":true`, "Ran `yes`\n```\ny\n```"},
		{"missing command", `"output":"y"`, "Ran `undefined`\n```\ny\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &archive.Context{Messages: []json.RawMessage{json.RawMessage(`{"role":"bashExecution",` + tt.msg + `,"timestamp":5}`)}, KeptEntryIDs: []string{"x"}}
			out := c.ForLLM()
			if len(out.Messages) != 1 {
				t.Fatalf("ForLLM kept %d messages, want 1", len(out.Messages))
			}
			var m struct {
				Role    string
				Content []struct{ Type, Text string }
			}
			if err := json.Unmarshal(out.Messages[0], &m); err != nil || m.Role != "user" || len(m.Content) != 1 {
				t.Fatalf("ForLLM message = %s (%v)", out.Messages[0], err)
			}
			if m.Content[0].Text != tt.want {
				t.Errorf("text = %q, want %q", m.Content[0].Text, tt.want)
			}
		})
	}
}

// A context is read from the entries of the path only: what the path's
// lines say, nothing from other branches (labels, names, compactions).
func TestContext_CompactionOfAnotherBranchIsNotUsed(t *testing.T) {
	c := pureContext(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), "b7395fc2")
	if slices.Contains(c.KeptEntryIDs, "be15d3f0") {
		t.Errorf("context(b7395fc2) kept %v: the compaction be15d3f0 is on another branch", c.KeptEntryIDs)
	}
	for _, m := range c.Messages {
		if strings.Contains(string(m), "compactionSummary") {
			t.Errorf("context(b7395fc2) holds a compaction summary: %s", m)
		}
	}
}

// An index made before schema 4 has no first_kept: opening it with this
// grove marks its version 1 sessions for a whole read, so their
// firstKeptEntryIndex is mapped again (SPEC §3.2), instead of answering
// a context without the kept entries.
func TestContext_MigrationRereadsVersion1Files(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v1-linear.jsonl"), dir, "v1.jsonl")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "v3.jsonl")
	db := filepath.Join(t.TempDir(), "index.db")
	a := mustOpenArchive(t, db)
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	mustSQL(t, db, "DROP INDEX entries_by_run", "ALTER TABLE entries DROP COLUMN pos", "ALTER TABLE entries DROP COLUMN run",
		"ALTER TABLE entries DROP COLUMN first_kept", "ALTER TABLE sessions DROP COLUMN first_message",
		"ALTER TABLE sessions DROP COLUMN activity_ms", "DROP INDEX entries_by_copy", "ALTER TABLE entries DROP COLUMN copy_crc", "ALTER TABLE entries DROP COLUMN side", "ALTER TABLE sessions DROP COLUMN source", "DROP INDEX sessions_by_workspace_key", "ALTER TABLE sessions DROP COLUMN workspace_key", "ALTER TABLE entries DROP COLUMN kind", "ALTER TABLE entries DROP COLUMN path_kind", "ALTER TABLE sessions DROP COLUMN real_leaves", "ALTER TABLE sessions DROP COLUMN gone", "PRAGMA user_version = 3")

	a = mustOpenArchive(t, db)
	if _, _, err := a.Context(ctx, "9d3f6b21", ""); err == nil || !strings.Contains(err.Error(), "stale_index") {
		t.Fatalf("Context of the v1 session right after the migration: err = %v, want stale_index", err)
	}
	sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}})
	// Migration 5 has every file read whole once more (its first message).
	if err != nil || sum.Indexed != 2 || sum.Unchanged != 0 {
		t.Fatalf("Index after the migrations = %+v, %v; want both files read again", sum, err)
	}
	_, c, err := a.Context(ctx, "9d3f6b21", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.KeptEntryIDs, " "); got != "L9 L7 L8 L10 L11" {
		t.Errorf("keptEntryIds after the migration = %s, want L9 L7 L8 L10 L11", got)
	}
}
