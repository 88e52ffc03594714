package pick

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/grove-sessions/grove/archive"
)

// fixture is an index of a pi session with branches (testdata's v3 tree),
// a Claude Code session and a Codex rollout, all working in ws, and where
// a pi fork goes (agentDir).
type fixture struct {
	a                *archive.Archive
	ws, agentDir, pi string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	tmp := t.TempDir()
	f := &fixture{ws: filepath.Join(tmp, "ws"), agentDir: filepath.Join(tmp, "agent")}
	roots := filepath.Join(tmp, "roots")
	for _, d := range []string{f.ws, filepath.Join(roots, "claude", "-ws")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	v3, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pi", "v3-tree.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.pi = filepath.Join(roots, "v3-tree.jsonl")
	write := func(path string, data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(f.pi, bytes.Replace(v3, []byte(`"cwd":"/workspace/demo-app"`), []byte(`"cwd":"`+f.ws+`"`), 1))
	write(filepath.Join(roots, "claude", "-ws", "c1a0de00-0000-4000-8000-000000000001.jsonl"), []byte(strings.ReplaceAll(claudeSession, "WS", f.ws)))
	write(filepath.Join(roots, "rollout-2026-05-01T10-00-00-0196c0de-0000-7000-8000-000000000001.jsonl"), []byte(strings.ReplaceAll(codexSession, "WS", f.ws)))
	ctx := context.Background()
	f.a, err = archive.OpenForWrite(ctx, filepath.Join(tmp, "index.db"), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.a.Close() })
	if _, err := f.a.Index(ctx, archive.IndexOptions{Roots: []string{roots}}); err != nil {
		t.Fatal(err)
	}
	return f
}

const claudeSession = `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"add login to the wombat app"},"uuid":"u1","timestamp":"2026-05-02T10:00:00.000Z","cwd":"WS","sessionId":"c1a0de00-0000-4000-8000-000000000001","version":"2.0.28"}
{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Using jsonwebtoken."}]},"uuid":"a1","timestamp":"2026-05-02T10:00:01.000Z","cwd":"WS","sessionId":"c1a0de00-0000-4000-8000-000000000001","version":"2.0.28"}
{"parentUuid":"u1","isSidechain":false,"type":"progress","data":{"type":"hook_progress","hookEvent":"UserPromptSubmit","hookName":"lint","command":"make lint"},"uuid":"hook-77","timestamp":"2026-05-02T10:00:00.500Z","cwd":"WS","sessionId":"c1a0de00-0000-4000-8000-000000000001","version":"2.1.78"}
{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":"add refresh tokens"},"uuid":"u2","timestamp":"2026-05-02T10:00:02.000Z","cwd":"WS","sessionId":"c1a0de00-0000-4000-8000-000000000001","version":"2.0.28"}
{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":"no: a logout endpoint"},"uuid":"u3","timestamp":"2026-05-02T10:00:03.000Z","cwd":"WS","sessionId":"c1a0de00-0000-4000-8000-000000000001","version":"2.0.28"}
`

const codexSession = `{"timestamp":"2026-04-01T10:00:00.000Z","type":"session_meta","payload":{"id":"0196c0de-0000-7000-8000-000000000001","timestamp":"2026-04-01T10:00:00.000Z","cwd":"WS","originator":"codex_cli_rs","cli_version":"0.98.0"}}
{"timestamp":"2026-04-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"rename the quokka helper"}]}}
{"timestamp":"2026-04-01T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Renamed."}]}}
`

func (f *fixture) model(query string) *Model {
	return New(context.Background(), f.a, Options{Query: query, Resume: archive.ResumeOptions{
		Getenv: func(k string) string {
			if k == "PI_CODING_AGENT_DIR" {
				return f.agentDir
			}
			return ""
		}}})
}

func start(t *testing.T, m *Model, w, h int) *teatest.TestModel {
	t.Helper()
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
}

// waitFor waits until the screen has shown every one of want.
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	var seen []byte
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		seen = append(seen, b...)
		for _, w := range want {
			if !bytes.Contains(seen, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

func key(code rune, mod ...tea.KeyMod) tea.KeyPressMsg {
	k := tea.KeyPressMsg{Code: code}
	for _, m := range mod {
		k.Mod |= m
	}
	return k
}

func final(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	return tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
}

// Newest first, every agent; typing filters by name at once and by full
// text through the index; Enter prints the active leaf's command.
func TestModel_FilterAndResumeActive(t *testing.T) {
	f := newFixture(t)
	tm := start(t, f.model(""), 160, 24)
	waitFor(t, tm, "3 sessions of 3 sessions", "add login to the wombat app", "rename the quokka helper", "Auth refactor (JWT)")
	tm.Type("jose") // only in the pi session's text: full text finds it
	waitFor(t, tm, "1 session of 3 sessions · full text: 1 session", "leaves of 5b7e2c14", "Let's try jose")
	tm.Send(key(tea.KeyEnter))
	m := final(t, tm)
	if m.Chosen == nil {
		t.Fatal("Enter chose nothing")
	}
	if got, want := m.Chosen.Line(), "cd "+f.ws+" && pi --session "+f.pi; got != want {
		t.Errorf("Enter printed %q, want %q", got, want)
	}
	if m.Chosen.Fork != nil {
		t.Errorf("the active leaf was forked: %+v", m.Chosen.Fork)
	}
}

// A name filter narrows at once; Tab moves to the leaves; Enter on another
// pi leaf forks its path into pi's folder and resumes the fork.
func TestModel_OtherLeafForks(t *testing.T) {
	f := newFixture(t)
	tm := start(t, f.model("auth refactor"), 120, 24)
	waitFor(t, tm, "1 session of 3 sessions", "* b7395fc2")
	tm.Send(key(tea.KeyTab))
	tm.Send(key(tea.KeyDown))
	tm.Send(key(tea.KeyEnter))
	m := final(t, tm)
	if m.Chosen == nil || m.Chosen.Fork == nil {
		t.Fatalf("Enter on a non-active leaf chose %+v, want a fork", m.Chosen)
	}
	if m.Chosen.Leaf != "35c7e0da" || m.Chosen.Fork.Leaf != "35c7e0da" {
		t.Errorf("resumed leaf %s (fork at %s), want 35c7e0da, the second newest", m.Chosen.Leaf, m.Chosen.Fork.Leaf)
	}
	if dir := filepath.Dir(m.Chosen.Fork.Out); !strings.HasPrefix(dir, filepath.Join(f.agentDir, "sessions")) {
		t.Errorf("fork written to %s, want pi's folder under %s", dir, f.agentDir)
	}
	if want := []string{"pi", "--session", m.Chosen.Fork.Out}; strings.Join(m.Chosen.Argv, " ") != strings.Join(want, " ") {
		t.Errorf("argv %q, want %q", m.Chosen.Argv, want)
	}
}

// An earlier Claude Code entry asks for the branch's first message, then
// answers the print-mode fork and the resume of the new session.
func TestModel_ClaudeAsksForPrompt(t *testing.T) {
	f := newFixture(t)
	tm := start(t, f.model("wombat"), 120, 24)
	waitFor(t, tm, "1 session of 3 sessions", "* u3")
	tm.Send(key(tea.KeyTab))
	tm.Send(key(tea.KeyDown))
	tm.Send(key(tea.KeyEnter))
	waitFor(t, tm, "first message of the branch>")
	tm.Type("try jose")
	tm.Send(key(tea.KeyEnter))
	m := final(t, tm)
	if m.Chosen == nil {
		t.Fatal("no command chosen")
	}
	argv := strings.Join(m.Chosen.Argv, " ")
	if !strings.HasPrefix(argv, "claude -p --resume c1a0de00-0000-4000-8000-000000000001 --resume-session-at u2 --fork-session --session-id ") || !strings.HasSuffix(argv, " try jose") {
		t.Errorf("argv %q", argv)
	}
	if len(m.Chosen.Then) != 3 || m.Chosen.Then[2] != m.Chosen.Argv[8] {
		t.Errorf("then %q does not resume the new session of %q", m.Chosen.Then, argv)
	}
}

// The leaves beside a session are its real ones (SPEC §4.2): a hook's
// progress line beside the conversation is no leaf a person made.
func TestModel_RealLeavesOnly(t *testing.T) {
	f := newFixture(t)
	tm := start(t, f.model("wombat"), 120, 24)
	waitFor(t, tm, "1 session of 3 sessions", "* u3")
	tm.Send(key(tea.KeyEsc))
	m := final(t, tm)
	var ids []string
	for _, ls := range m.leaves {
		for _, l := range ls {
			ids = append(ids, l.EntryID)
		}
	}
	slices.Sort(ids)
	if want := []string{"u2", "u3"}; !slices.Equal(ids, want) {
		t.Errorf("the Claude session's leaves beside it are %q, want %q (the hook line is no real leaf)", ids, want)
	}
}

// A refusal (here: the workspace is gone) is shown and the picker stays;
// Esc then leaves without a command.
func TestModel_EscAndRefusal(t *testing.T) {
	f := newFixture(t)
	if err := os.Remove(f.ws); err != nil {
		t.Fatal(err)
	}
	tm := start(t, f.model("quokka"), 200, 24)
	waitFor(t, tm, "1 session of 3 sessions", "leaves of 0196c0de")
	tm.Send(key(tea.KeyEnter))
	waitFor(t, tm, "the session's workspace "+f.ws)
	tm.Send(key(tea.KeyEsc))
	m := final(t, tm)
	if m.Chosen != nil {
		t.Errorf("Esc chose %+v", m.Chosen)
	}
	if want := "does not exist here; grove runs an agent only in the session's own workspace [cannot_resume]"; !strings.Contains(m.status, want) {
		t.Errorf("status %q, want it to say %q", m.status, want)
	}
}

// On a narrow terminal a refusal wraps onto the bottom lines, whole: the
// reason and what would work are at its end.
func TestModel_RefusalWrapsWhole(t *testing.T) {
	f := newFixture(t)
	if err := os.Remove(f.ws); err != nil {
		t.Fatal(err)
	}
	tm := start(t, f.model("quokka"), 80, 24)
	waitFor(t, tm, "1 session of 3 sessions", "leaves of 0196c0de")
	tm.Send(key(tea.KeyEnter))
	waitFor(t, tm, "own workspace [cannot_resume]")
	tm.Send(key(tea.KeyEsc))
	m := final(t, tm)
	if n := len(m.statusLines()); n < 2 {
		t.Errorf("the refusal takes %d line at 80 columns, want it wrapped", n)
	}
	if got := strings.Count(m.screen(), "\n") + 1; got != 24 {
		t.Errorf("the screen is %d lines with a wrapped refusal, want the terminal's 24", got)
	}
}

// A terminal too small is told so, and the picker draws once it grows;
// text from a session never reaches the screen as control characters.
func TestModel_TooSmall(t *testing.T) {
	f := newFixture(t)
	tm := start(t, f.model(""), 50, 8)
	waitFor(t, tm, "terminal too small:", "grove pick needs 60×10,", "this one is 50×8.")
	tm.Send(tea.WindowSizeMsg{Width: 100, Height: 20})
	waitFor(t, tm, "3 sessions of 3 sessions")
	tm.Send(key('c', tea.ModCtrl))
	if m := final(t, tm); m.Chosen != nil {
		t.Errorf("Ctrl-C chose %+v", m.Chosen)
	}
}

func TestAsTyped(t *testing.T) {
	for q, want := range map[string]string{
		"jose":          "jose*",
		"try jos":       "try jos*",
		"try jo":        "try jo",
		"j":             "j",
		`"run the`:      `"run the`,
		`"run the"`:     `"run the"`,
		"serial*":       "serial*",
		"yaml -json":    "yaml -json",
		"a OR":          "a OR",
		"数据":            "数据",
		"parser_test.g": "parser_test.g",
	} {
		if got := asTyped(q); got != want {
			t.Errorf("asTyped(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestTypedOn(t *testing.T) {
	for _, c := range []struct {
		before, now []string
		want        bool
	}{
		{[]string{"jo"}, []string{"jos"}, true},
		{[]string{"jos"}, []string{"jos", "x"}, true},
		{[]string{"jose"}, []string{"jos"}, false},
		{[]string{"a", "b"}, []string{"a"}, false},
		{[]string{"a", "b"}, []string{"c", "bb"}, false},
		{nil, []string{"a"}, false},
		{[]string{"jo"}, []string{"jo*"}, false},
	} {
		if got := typedOn(c.before, c.now); got != c.want {
			t.Errorf("typedOn(%q, %q) = %v, want %v", c.before, c.now, got, c.want)
		}
	}
}
