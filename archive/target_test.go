package archive_test

import (
	"path/filepath"
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
		{"claude Agent SDK", `{"type":"agent-setting","agentSetting":"triage","entrypoint":"sdk-cli"}` + "\n", "Claude Code"},
		{"codex newer item", `{"timestamp":"t","type":"token_usage_record","payload":{}}` + "\n", "Codex"},
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

// Whatever may come before a file's first committed line — a byte order
// mark (SPEC §2.2), blank or whitespace-only lines (§2.3), CRLF line ends
// (§2.4) — SessionLine still sees the session line behind it, in every
// dialect; and behind the same bytes, a line that is no session stays
// none, so export --force never replaces a session behind a BOM (docs/writing.md
// "Export never replaces a session").
func TestSessionLineLeadingBytes(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	lines := []struct{ name, line, want string }{
		{"pi header", `{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}`, "pi session header"},
		{"pi entry", `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}`, "pi session entry"},
		{"claude", `{"parentUuid":null,"type":"user","uuid":"u"}`, "Claude Code"},
		{"codex", `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, "Codex"},
		{"chat", `{"role":"user","content":"hi"}`, "chat message"},
		{"markdown", `# Session 5b7e`, ""},
		{"other JSON", `{"hello":"world"}`, ""},
	}
	prefixes := []struct{ name, bytes string }{
		{"nothing", ""},
		{"a BOM", bom},
		{"blank lines", "\n\n"},
		{"whitespace lines", " \t\n\r\n  \n"},
		{"a BOM then blank lines", bom + "\n \n"},
		{"blank lines then a BOM", "\n\n" + bom},
		{"CRLF blank lines", "\r\n\r\n"},
		{"a BOM then CRLF blank lines", bom + "\r\n"},
	}
	for _, l := range lines {
		for _, p := range prefixes {
			for _, end := range []string{"\n", "\r\n", ""} {
				data := p.bytes + l.line + end + `{"type":"message","id":"b","parentId":"a"}` + end
				path := testutil.MustWriteFile(t, t.TempDir(), "f.md", []byte(data))
				got := archive.SessionLine(path)
				if (l.want == "") != (got == "") || !strings.Contains(got, l.want) {
					t.Errorf("%s after %s, line end %q: SessionLine = %q, want %q", l.name, p.name, end, got, l.want)
				}
			}
		}
	}
	// The shared case itself: a pi session whose first line starts with a BOM.
	bomCase := testutil.MustCopy(t, filepath.Join("..", "testdata", "cases", "16-bom-first-line.jsonl"), t.TempDir(), "copy.md")
	if got := archive.SessionLine(bomCase); !strings.Contains(got, "pi session header") {
		t.Errorf("cases/16-bom-first-line.jsonl: SessionLine = %q, want a pi session header", got)
	}
	// A BOM alone, or a BOM before a line that is no JSON, is no session.
	for _, data := range []string{bom, bom + "\n", bom + bom + "text\n", bom + "<!doctype html>\n"} {
		path := testutil.MustWriteFile(t, t.TempDir(), "f", []byte(data))
		if got := archive.SessionLine(path); got != "" {
			t.Errorf("%q: SessionLine = %q, want none", data, got)
		}
	}
}
