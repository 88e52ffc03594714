package archive_test

import (
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// SessionLine recognises the first line of each dialect's files (FORMATS.md
// §0) and nothing else: Markdown, HTML, other JSON, an empty file.
func TestSessionLine(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		name, data string
		want       string // a substring of the answer, "" for none
	}{
		{"pi header", `{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}` + "\n", "pi session header"},
		{"omp title", `{"type":"title","title":"t"}` + "\n", "pi session header"},
		{"pi entry", `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}` + "\n", "pi session entry"},
		{"plain entry", `{"id":"a","parentId":null,"text":"hi"}` + "\n", "plain session entry"},
		{"claude summary", `{"type":"summary","summary":"s","leafUuid":"u"}` + "\n", "Claude Code"},
		{"claude user", `{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u"}` + "\n", "Claude Code"},
		{"claude unknown type with uuid", `{"type":"brand-new","uuid":"u"}` + "\n", "Claude Code"},
		{"codex meta", `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n", "Codex"},
		{"codex item", `{"timestamp":"t","type":"response_item","payload":{"type":"message"}}` + "\n", "Codex"},
		{"codex legacy", `{"id":"x","timestamp":"t","instructions":null}` + "\n", "Codex session header"},
		{"chat message", `{"role":"user","content":"hi"}` + "\n", "chat message"},
		{"blank lines first", "\n  \n" + `{"role":"assistant","content":[{"type":"text","text":"x"}]}` + "\n", "chat message"},
		{"a long first line", `{"role":"user","content":"` + long + `","extra":{"a":[1,2,{"b":"` + long + `"}]}}` + "\n", "chat message"},
		{"unterminated, still a session (needs repair)", `{"type":"session","id":"x"`, "pi session header"},
		{"markdown", "# Session 5b7e\n\n{\"type\":\"session\"}\n", ""},
		{"html", "<!doctype html>\n", ""},
		{"other JSON", `{"hello":"world","list":[{"role":"user","content":"x"}]}` + "\n", ""},
		{"role without content", `{"role":"user"}` + "\n", ""},
		{"array", `[{"type":"session"}]` + "\n", ""},
		{"empty", "", ""},
	} {
		path := testutil.MustWriteFile(t, t.TempDir(), "f", []byte(c.data))
		got := archive.SessionLine(path)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: SessionLine = %q, want %q", c.name, got, c.want)
		}
	}
}
