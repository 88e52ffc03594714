package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// SPEC §3: any line that can only be one agent's decides a file's dialect,
// not only the first. Every real Claude Code file of ../shared/corpus,
// opened with the line the Agent SDK writes first, and every real Codex
// rollout with its session_meta lines taken out, each in a folder that
// says nothing of the agent and under a name that says nothing either,
// must be read as that agent's: the same entries, the same messages on
// the active path, and no bad line, as the file itself.
func TestCorpus_DialectFromAnyLine(t *testing.T) {
	claudeRoot := testutil.MustShared(t, "corpus/claude/projects")
	codexRoot := testutil.MustShared(t, "corpus/codex/sessions")
	type pair struct{ dialect, orig, changed string }
	var pairs []pair
	dir := t.TempDir()
	n := 0
	put := func(dialect, orig string, data []byte) {
		n++
		changed := filepath.Join(dir, "drop", "s"+strings.Repeat("x", n%3)+"-"+string(rune('a'+n))+".jsonl")
		os.MkdirAll(filepath.Dir(changed), 0o700)
		if err := os.WriteFile(changed, data, 0o600); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pair{dialect, orig, changed})
	}
	sdkLine := []byte(`{"type":"agent-setting","agentSetting":"triage","entrypoint":"sdk-cli"}` + "\n")
	walk := func(root string, fn func(path string, data []byte)) {
		filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".jsonl") {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				fn(p, data)
			}
			return nil
		})
	}
	walk(claudeRoot, func(p string, data []byte) { put("claude", p, append(append([]byte(nil), sdkLine...), data...)) })
	walk(codexRoot, func(p string, data []byte) {
		var kept [][]byte
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if !bytes.Contains(l, []byte(`"type":"session_meta"`)) {
				kept = append(kept, l)
			}
		}
		if len(kept) == len(bytes.SplitAfter(data, []byte("\n"))) {
			return // a pre-envelope rollout: its header is no session_meta
		}
		put("codex", p, bytes.Join(kept, nil))
	})
	if len(pairs) < 5 {
		t.Fatalf("found %d corpus files; want the Claude and Codex files of ../shared/corpus", len(pairs))
	}
	db := filepath.Join(t.TempDir(), "i.db")
	if _, err := runGrove(t, db, "--json", "index", "--root", filepath.Join(dir, "drop"), "--root", claudeRoot, "--root", codexRoot); err != nil {
		t.Fatal(err)
	}
	out, err := runGrove(t, db, "--json", "sessions")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Sessions []struct {
			Path, Dialect, State string
			Entries              int
			Diagnostics          []any
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	type info struct {
		dialect, state    string
		entries, diagnose int
	}
	byPath := map[string]info{}
	for _, s := range list.Sessions {
		byPath[s.Path] = info{s.Dialect, s.State, s.Entries, len(s.Diagnostics)}
	}
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	messagesOf := func(path string) string {
		out, err := runGrove(t, db, "--json", "messages", path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Messages []json.RawMessage }
		json.Unmarshal([]byte(out), &doc)
		b, _ := json.Marshal(doc.Messages)
		return string(b)
	}
	for _, p := range pairs {
		orig, changed := byPath[real(p.orig)], byPath[real(p.changed)]
		if changed.dialect != p.dialect || changed.entries != orig.entries || changed.diagnose != orig.diagnose {
			t.Errorf("%s (from %s): read as %s with %d entries and %d diagnostics; want %s, %d, %d as the file itself",
				filepath.Base(p.changed), p.orig, changed.dialect, changed.entries, changed.diagnose, p.dialect, orig.entries, orig.diagnose)
			continue
		}
		if orig.entries > 0 && messagesOf(p.changed) != messagesOf(p.orig) {
			t.Errorf("%s (from %s): the messages on the active path differ from the file's own", filepath.Base(p.changed), p.orig)
		}
	}
}
