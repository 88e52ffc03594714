package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lines in the shapes real transcripts have (FORMATS.md §1.12, §2.9).
const (
	claudeUser      = `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w/app","sessionId":"5d0c1e9a","version":"2.1.17","type":"user","message":{"role":"user","content":"triage the failing build"},"uuid":"u1","timestamp":"2026-02-01T10:00:00.000Z"}`
	claudeAssistant = `{"parentUuid":"u1","isSidechain":false,"cwd":"/w/app","sessionId":"5d0c1e9a","version":"2.1.17","type":"assistant","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Looking at the build log."}]},"requestId":"req_1","uuid":"a1","timestamp":"2026-02-01T10:00:02.000Z"}`
	codexMessage    = `{"timestamp":"2026-02-23T20:34:26.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}}`
	codexEventLine  = `{"timestamp":"2026-02-23T20:34:27.000Z","type":"event_msg","payload":{"type":"agent_message","message":"All 12 tests pass."}}`
	codexTurnLine   = `{"timestamp":"2026-02-23T20:35:00.000Z","type":"turn_context","payload":{"cwd":"/w/app","model":"gpt-5-codex"}}`
	codexFuture     = `{"timestamp":"2026-02-23T20:34:25.000Z","type":"future_synthetic_record","payload":{"x":1}}`
	chatUser        = `{"role":"user","content":"list the files"}`
	plainRoot       = `{"id":"e1","parentId":null,"timestamp":1767225600000,"type":"message","message":{"role":"user","content":"hi"}}`
)

// Any line that can only belong to one dialect decides the file's dialect,
// wherever it is in the file and wherever the file is; where the file was
// found breaks a tie; a file whose lines are all another dialect's is
// never read as plain (SPEC §3).
func TestRead_DecisiveLineDecides(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	for _, tc := range []struct {
		name    string
		where   string // the file's path under a temp dir
		data    string
		dialect Dialect
		entries int
		errors  int
		sure    bool // a line decided it: the read can be resumed
	}{
		{"Agent SDK transcript (agent-setting first)", "sdk.jsonl",
			lines(`{"type":"agent-setting","agentSetting":"triage","entrypoint":"sdk-cli"}`, claudeUser, claudeAssistant), Claude, 2, 0, true},
		{"Claude metadata of a type grove has not met, then entries", "a/b.jsonl",
			lines(`{"type":"session-shape","shape":{"v":9}}`, `{"type":"session-shape","shape":{"v":10}}`, claudeUser, claudeAssistant), Claude, 2, 0, true},
		{"Codex rollout without session_meta", "r.jsonl",
			lines(codexMessage, codexEventLine, codexTurnLine), Codex, 3, 0, true},
		{"Codex rollout opening with an envelope of an unknown type", "r2.jsonl",
			lines(codexFuture, codexMessage, codexEventLine, codexTurnLine), Codex, 4, 0, true},
		{"messages log opening with a line of no dialect", "m.jsonl",
			lines(`{"note":"saved by a script"}`, chatUser, `{"role":"assistant","content":"a.go b.go"}`), Messages, 2, 1, true},
		{"plain log opening with a line of no dialect", "p.jsonl",
			lines(`{"note":"x"}`, plainRoot), Plain, 1, 1, true},
		{"no line decides, under a Claude projects root", ".claude/projects/-w-app/x.jsonl",
			lines(`{"type":"never-seen"}`, `{"type":"never-seen-either"}`), Claude, 0, 0, false},
		{"no line decides, named like a rollout", "rollout-2026-01-01T00-00-00-x.jsonl",
			lines(`{"note":"x"}`), Codex, 0, 1, false},
		{"no line decides, anywhere else", "other.jsonl",
			lines(`{"note":"x"}`, `{"note":"y"}`), Plain, 0, 2, false},
		{"a bad first line, then Claude", "bad.jsonl",
			lines(`{"uuid":`, claudeUser), Claude, 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.where)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			es, res, err := ReadFile(path, Salvage)
			if err != nil {
				t.Fatal(err)
			}
			if res.Dialect != tc.dialect || len(es) != tc.entries || len(res.Errors) != tc.errors {
				t.Fatalf("dialect %s, %d entries, %d bad lines (%v); want %s, %d, %d", res.Dialect, len(es), len(res.Errors), res.Errors, tc.dialect, tc.entries, tc.errors)
			}
			if res.Resumable != tc.sure {
				t.Fatalf("Resumable = %v, want %v: a read is resumable only when a line decided the dialect", res.Resumable, tc.sure)
			}
		})
	}
}

// A file whose dialect came from its place, not a line, is read whole
// again when it grows: the new lines may decide otherwise.
func TestRead_UndecidedFileGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grow.jsonl")
	os.WriteFile(path, []byte(`{"note":"x"}`+"\n"), 0o600)
	_, first, err := ReadFile(path, Salvage)
	if err != nil || first.Dialect != Plain || first.Resumable {
		t.Fatalf("first read: %s resumable=%v %v; want plain, not resumable", first.Dialect, first.Resumable, err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(claudeUser + "\n")
	f.Close()
	es, res, err := ReadFile(path, Salvage)
	if err != nil || res.Dialect != Claude || len(es) != 1 || len(res.Errors) != 0 {
		t.Fatalf("grown: %s, %d entries, %v, %v; want claude with 1 entry", res.Dialect, len(es), res.Errors, err)
	}
}
