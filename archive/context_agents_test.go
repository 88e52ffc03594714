package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/jsonl"
	"github.com/rogpeppe/go-internal/txtar"
)

// agentCase is one expectation of testdata/<dialect>/context-*.expected.json:
// the context at Leaf ("" for the active leaf).
type agentCase struct {
	Note          string            `json:"note"`
	Leaf          string            `json:"leaf"`
	KeptEntryIDs  []string          `json:"keptEntryIds"`
	ThinkingLevel json.RawMessage   `json:"thinkingLevel"`
	Model         json.RawMessage   `json:"model"`
	Messages      []json.RawMessage `json:"messages"`
}

// agentFixtures lists the context fixtures of the messages, claude and
// codex dialects, each with its expectations.
func agentFixtures(t *testing.T) map[string][]agentCase {
	t.Helper()
	out := map[string][]agentCase{}
	for _, d := range []string{"messages", "claude", "codex"} {
		files, err := filepath.Glob(filepath.Join("..", "testdata", d, "context-*.jsonl"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no context fixtures in testdata/%s (%v)", d, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".expected.json")
			if err != nil {
				t.Fatal(err)
			}
			var cases []agentCase
			if err := json.Unmarshal(b, &cases); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out[f] = cases
		}
	}
	return out
}

// sameJSON reports whether a and b are the same JSON value (key order and
// spacing aside).
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// checkAgentCase compares the context c with the expectation want.
func checkAgentCase(t *testing.T, what string, c *archive.Context, want agentCase) {
	t.Helper()
	if !slicesEqual(c.KeptEntryIDs, want.KeptEntryIDs) {
		t.Errorf("%s: keptEntryIds = %q, want %q (%s)", what, c.KeptEntryIDs, want.KeptEntryIDs, want.Note)
	}
	if !sameJSON(c.ThinkingLevel, want.ThinkingLevel) {
		t.Errorf("%s: thinkingLevel = %s, want %s", what, c.ThinkingLevel, want.ThinkingLevel)
	}
	model, _ := json.Marshal(c.Model)
	if !sameJSON(model, want.Model) {
		t.Errorf("%s: model = %s, want %s", what, model, want.Model)
	}
	if len(c.Messages) != len(want.Messages) {
		t.Errorf("%s: %d messages, want %d: %s", what, len(c.Messages), len(want.Messages), contextJSON(c))
		return
	}
	for i := range c.Messages {
		if !sameJSON(c.Messages[i], want.Messages[i]) {
			t.Errorf("%s: message %d = %s, want %s", what, i, c.Messages[i], want.Messages[i])
		}
	}
}

func slicesEqual(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// TestSessionContext_AgentFixtures checks the pure side against the
// hand-written expectations: messages log (every line), Claude (parallel
// tool results re-attached, compaction, <synthetic>), Codex
// (replacement_history, rebuilt summaries, rollbacks).
func TestSessionContext_AgentFixtures(t *testing.T) {
	for f, cases := range agentFixtures(t) {
		s, err := archive.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Result.Errors) > 0 {
			t.Fatalf("%s: the fixture has bad lines: %v", f, s.Result.Errors)
		}
		for _, want := range cases {
			c, err := archive.SessionContext(s, want.Leaf)
			if err != nil {
				t.Errorf("SessionContext(%s, %q): %v", f, want.Leaf, err)
				continue
			}
			checkAgentCase(t, "SessionContext("+filepath.Base(f)+", "+want.Leaf+")", c, want)
			if c.Dialect != s.Dialect {
				t.Errorf("%s: context dialect %q, session %q", f, c.Dialect, s.Dialect)
			}
			checkAsStored(t, s, c)
			// --llm leaves these dialects' messages as they are.
			if l := c.ForLLM(); contextJSON(l) != contextJSON(c) {
				t.Errorf("%s: ForLLM changed the context:\n%s\nwas\n%s", f, contextJSON(l), contextJSON(c))
			}
		}
	}
}

// checkAsStored checks that a message taken from an entry of s is that
// entry's message byte for byte, as the dialect's Rules give it; for codex
// only the messages after the last one a compacted entry gave (the earlier
// ones come from its replacement_history or its rebuild).
func checkAsStored(t *testing.T, s *archive.File, c *archive.Context) {
	t.Helper()
	byID := map[string]*jsonl.Entry{}
	for i := range s.Entries {
		byID[s.Entries[i].ID] = &s.Entries[i]
	}
	rules := jsonl.RulesOf(s.Dialect)
	from := 0
	for i, id := range c.KeptEntryIDs {
		if e := byID[id]; e != nil && e.Type == "compacted" {
			from = i + 1
		}
	}
	for i, id := range c.KeptEntryIDs {
		e := byID[id]
		if e == nil {
			t.Errorf("%s: keptEntryIds[%d] = %q names no entry", s.Path, i, id)
			continue
		}
		if s.Dialect == jsonl.Codex && i < from {
			continue
		}
		stored := rules.Message(e.Type, e.Raw)
		if !bytes.Equal(c.Messages[i], stored) {
			t.Errorf("%s: message %d is not entry %s's as stored:\n%s\nwant\n%s", s.Path, i, id, c.Messages[i], stored)
		}
	}
}

// TestArchiveContextOf_AgentFixtures: the index's answer (the path by CTE,
// lines read back by offset, children from the index) is the fixtures'
// expectation too.
func TestArchiveContextOf_AgentFixtures(t *testing.T) {
	fixtures := agentFixtures(t)
	dir := t.TempDir()
	for f := range fixtures {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, filepath.Base(filepath.Dir(f)))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := mustIndexLeaves(t, dir)
	ctx := context.Background()
	for f, cases := range fixtures {
		path := filepath.Join(dir, filepath.Base(filepath.Dir(f)), filepath.Base(f))
		for _, want := range cases {
			_, c, err := a.Context(ctx, path, want.Leaf)
			if err != nil {
				t.Errorf("ContextOf(%s, %q): %v", path, want.Leaf, err)
				continue
			}
			checkAgentCase(t, "ContextOf("+filepath.Base(f)+", "+want.Leaf+")", c, want)
		}
	}
}

// TestContextScript_FixtureCopies: the copies of the context fixtures in
// cmd/grove/testdata/script/context_agents.txtar (the script's $WORK only
// holds what the txtar brings) are the fixtures byte for byte, and all of
// them are there.
func TestContextScript_FixtureCopies(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "cmd", "grove", "testdata", "script", "context_agents.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	copies := map[string][]byte{}
	for _, f := range ar.Files {
		copies[f.Name] = f.Data
	}
	for f := range agentFixtures(t) {
		name := "agents/" + filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(copies[name], b) {
			t.Errorf("context_agents.txtar's %s is not %s as it is now: copy it again", name, f)
		}
	}
}
