package jsonl_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grove-sessions/grove/jsonl"
)

// ActivityTime follows pi's getLastActivityTime: the message's own numeric
// timestamp, else the entry's; nothing for a message without content.
func TestActivityTime(t *testing.T) {
	const entry = 1000
	for _, c := range []struct {
		name, line string
		want       int64
		ok         bool
	}{
		{"own number wins", `{"type":"message","message":{"role":"user","content":"x","timestamp":1775037603250}}`, 1775037603250, true},
		{"own fraction cut", `{"type":"message","message":{"role":"user","content":"x","timestamp":12.9}}`, 12, true},
		{"own string is no number: the entry's", `{"type":"message","message":{"role":"user","content":"x","timestamp":"2026-01-01T00:00:00Z"}}`, entry, true},
		{"no own time: the entry's", `{"type":"message","message":{"role":"assistant","content":[]}}`, entry, true},
		{"beyond a Date: the entry's", `{"type":"message","message":{"role":"user","content":"x","timestamp":1e300}}`, entry, true},
		{"no content: none", `{"type":"message","message":{"role":"user","timestamp":5}}`, 0, false},
		{"no message: none", `{"type":"message"}`, 0, false},
		{"not an object: none", `[1,2]`, 0, false},
	} {
		got, ok := jsonl.ActivityTime([]byte(c.line), entry, true)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: ActivityTime = %d, %v; want %d, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if _, ok := jsonl.ActivityTime([]byte(`{"message":{"role":"user","content":"x"}}`), 0, false); ok {
		t.Errorf("ActivityTime without any time: ok, want none")
	}
}

// MessageText is pi's extractTextContent: a string content, or the text
// blocks joined by one space.
func TestMessageText(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"message":{"role":"user","content":"hi\nthere"}}`, "hi\nthere"},
		{`{"message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA"},{"type":"text","text":"b"}]}}`, "a b"},
		{`{"message":{"role":"user","content":[{"type":"image","data":"AAAA"}]}}`, ""},
		{`{"message":{"role":"user","content":[{"type":"text"},{"type":"text","text":"z"}]}}`, " z"},
		{`{"message":{"role":"user","content":"\ud83d"}}`, "\ufffd"},
		{`{"message":{"role":"user"}}`, ""},
		{`not json`, ""},
	} {
		if got := jsonl.MessageText([]byte(c.line)); got != c.want {
			t.Errorf("MessageText(%s) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestStripEscapes(t *testing.T) {
	if got := jsonl.StripEscapes("\x1b[1;31mred\x1b[0m \x1b]0;title\x07ok"); got != "red ok" {
		t.Errorf("StripEscapes = %q, want %q", got, "red ok")
	}
}

// An ESC before a multibyte character takes no byte of it: the text stays
// valid UTF-8 (a lone ESC is dropped, the character kept).
func TestStripEscapes_MultibyteAfterESC(t *testing.T) {
	for in, want := range map[string]string{
		"a\x1bé":  "aé",
		"a\x1b(é": "aé",
		"\x1b中文":  "中文",
	} {
		got := jsonl.StripEscapes(in)
		if got != want || !utf8.ValidString(got) {
			t.Errorf("StripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
	if got := string(jsonl.AppendSearchText(nil, []byte(`{"type":"message","message":{"role":"user","content":"a\u001bé"}}`))); !utf8.ValidString(got) || !strings.Contains(got, "aé") {
		t.Errorf("search text %q, want valid UTF-8 holding aé", got)
	}
}
