package archive_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/jsonl"
)

// corpusAgentDirs are the folders of ../shared/corpus with sessions of the
// messages, claude and codex dialects that exist; the test skips, saying
// so, when none does.
func corpusAgentDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, d := range []string{"messages", "claude", "codex"} {
		dir := filepath.Join("..", "..", "shared", "corpus", d)
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		t.Skip("../shared/corpus has no messages, claude or codex sessions here")
	}
	return dirs
}

// corpusAgentFiles is every session file under dirs.
func corpusAgentFiles(t *testing.T, dirs []string) []string {
	t.Helper()
	var files []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".jsonl" {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// contentIDs is the string field key of every block of type typ in the
// content list of message m (Anthropic blocks), or, when m itself is a
// Codex item of type typ, its key.
func contentIDs(m []byte, typ, key string) []string {
	var ids []string
	one := func(b []byte) {
		if s, ok := jsonString(jsonl.Field(b, "type")); ok && s == typ {
			if id, ok := jsonString(jsonl.Field(b, key)); ok {
				ids = append(ids, id)
			}
		}
	}
	one(m)
	jsonl.Elements(jsonl.Field(m, "content"), one)
	return ids
}

// jsonString is the JSON string v decoded; ok is false for any other value.
func jsonString(v []byte) (s string, ok bool) {
	return s, json.Unmarshal(v, &s) == nil && len(v) > 0 && v[0] == '"'
}

// checkPairing checks that every call in the context c of session s whose
// answer is somewhere in the file has that answer after it in c: Claude
// tool_use / tool_result (FORMATS.md §1.9), Codex function_call and
// custom_tool_call / their outputs (§2.4).
func checkPairing(t *testing.T, s *archive.File, leaf string, c *archive.Context) {
	t.Helper()
	type pair struct{ call, answer, key, answerKey string }
	var pairs []pair
	switch s.Dialect {
	case jsonl.Claude, jsonl.Messages:
		pairs = []pair{{"tool_use", "tool_result", "id", "tool_use_id"}}
	case jsonl.Codex:
		pairs = []pair{{"function_call", "function_call_output", "call_id", "call_id"},
			{"custom_tool_call", "custom_tool_call_output", "call_id", "call_id"}}
	}
	rules := jsonl.RulesOf(s.Dialect)
	for _, p := range pairs {
		inFile := map[string]bool{}
		for i := range s.Entries {
			for _, id := range contentIDs(rules.Message(s.Entries[i].Type, s.Entries[i].Raw), p.answer, p.answerKey) {
				inFile[id] = true
			}
		}
		called := map[string]int{} // call id -> index of its message in c
		answered := map[string]bool{}
		for i, m := range c.Messages {
			for _, id := range contentIDs(m, p.call, p.key) {
				called[id] = i
			}
			for _, id := range contentIDs(m, p.answer, p.answerKey) {
				if _, ok := called[id]; ok {
					answered[id] = true
				}
			}
		}
		for id := range called {
			if inFile[id] && !answered[id] {
				t.Errorf("%s at %s: %s %s has its %s in the file but not after it in the context (%v)",
					s.Path, leaf, p.call, id, p.answer, c.KeptEntryIDs)
			}
		}
	}
	if s.Dialect == jsonl.Claude { // no call or result twice (SPEC §3.4)
		for _, kind := range [][2]string{{"tool_use", "id"}, {"tool_result", "tool_use_id"}} {
			once := map[string]bool{}
			for _, m := range c.Messages {
				for _, id := range contentIDs(m, kind[0], kind[1]) {
					if once[id] {
						t.Errorf("%s at %s: %s %s is in the context twice (%v)", s.Path, leaf, kind[0], id, c.KeptEntryIDs)
					}
					once[id] = true
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, id := range c.KeptEntryIDs {
		if seen[id] && s.Dialect != jsonl.Codex { // a Codex replacement_history gives one id many messages
			t.Errorf("%s at %s: entry %s is in the context twice (%v)", s.Path, leaf, id, c.KeptEntryIDs)
		}
		seen[id] = true
	}
}

// TestSessionContext_CorpusPairing runs the context at every leaf of every
// messages, claude and codex session of ../shared/corpus and checks that a
// call whose result is in the file has it in the context (the Claude
// sub-agent agent-a2271d1 has 16 leaves from parallel tool calls).
func TestSessionContext_CorpusPairing(t *testing.T) {
	files := corpusAgentFiles(t, corpusAgentDirs(t))
	reattached := 0
	for _, f := range files {
		s, err := archive.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range archive.Leaves(s.Entries) {
			c, err := archive.SessionContext(s, l.ID)
			if err != nil {
				if _, perr := archive.PathTo(s.Entries, l.ID); perr == nil {
					t.Errorf("SessionContext(%s, %s): %v", f, l.ID, err)
				}
				continue
			}
			checkPairing(t, s, l.ID, c)
			if s.Dialect == jsonl.Claude {
				path, _ := archive.PathTo(s.Entries, l.ID)
				n := 0
				for _, e := range path {
					if e.Type == "user" || e.Type == "assistant" {
						n++
					}
				}
				reattached += len(c.Messages) - n
			}
		}
	}
	if reattached == 0 {
		t.Errorf("no Claude context in %d corpus files re-attached a tool result", len(files))
	}
}

// TestArchiveContextOf_Corpus: for every leaf of the corpus's messages,
// claude and codex sessions, and of every fixture in testdata/<dialect>,
// the context by the index is the pure one.
func TestArchiveContextOf_Corpus(t *testing.T) {
	dirs := corpusAgentDirs(t)
	for _, d := range []string{"messages", "claude", "codex"} {
		dirs = append(dirs, filepath.Join("..", "testdata", d))
	}
	ctx := context.Background()
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: dirs}); err != nil {
		t.Fatal(err)
	}
	leaves, err := a.Leaves(ctx, archive.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(leaves) == 0 {
		t.Fatalf("no leaves indexed under %v", dirs)
	}
	for _, l := range leaves {
		_, got, err := a.Context(ctx, l.Session.Path, l.EntryID)
		s, lerr := archive.Load(l.Session.Path)
		if lerr != nil {
			t.Fatal(lerr)
		}
		want, werr := archive.SessionContext(s, l.EntryID)
		if (err == nil) != (werr == nil) {
			t.Errorf("%s at %s: index %v, pure %v", l.Session.Path, l.EntryID, err, werr)
			continue
		}
		if err == nil && contextJSON(got) != contextJSON(want) {
			t.Errorf("%s at %s: index\n%s\npure\n%s", l.Session.Path, l.EntryID, contextJSON(got), contextJSON(want))
		}
	}
}

// TestSessionContext_CorpusMessageGroups: the context at the active leaf
// of the corpus's Claude Code 2.1 sub-agent agent-a2271d1, a linear run
// whose parallel tool calls each hang their result off their own line,
// holds every one of its 24 tool calls (its Task result says
// totalToolUseCount 24), each followed right away by its result, none
// twice (SPEC §3.4); the pure path holds 18 of them.
func TestSessionContext_CorpusMessageGroups(t *testing.T) {
	f := filepath.Join("..", "..", "shared", "corpus", "claude", "projects", "-src-experiments-claude-p",
		"29ccd257-68b1-427f-ae5f-6524b7cb6f20", "subagents", "agent-a2271d1.jsonl")
	if _, err := os.Stat(f); err != nil {
		t.Skipf("the corpus sub-agent file is not here (%v)", err)
	}
	s, err := archive.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	c, err := archive.SessionContext(s, "")
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	seen := map[string]bool{}
	for i, m := range c.Messages {
		for _, id := range contentIDs(m, "tool_use", "id") {
			if seen[id] {
				t.Errorf("tool_use %s is in the context twice", id)
			}
			seen[id] = true
			calls = append(calls, id)
			var next []string
			if i+1 < len(c.Messages) {
				next = contentIDs(c.Messages[i+1], "tool_result", "tool_use_id")
			}
			if len(next) != 1 || next[0] != id {
				t.Errorf("tool_use %s (message %d) is followed by the results %q, want its own", id, i, next)
			}
		}
	}
	if len(calls) != 24 {
		t.Errorf("the context holds %d tool calls, want 24 (%v)", len(calls), c.KeptEntryIDs)
	}
}
