package archive_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// pi 1.6's buildSessionContext (buildSessionProjection) and convertToLlm,
// rule by rule, on small files: context_edit, usage, system messages, a
// compaction's systemMessage, null content. Each message is compared byte
// for byte; TestPiDifferential runs pi itself on testdata/pi-1.6.
func TestBuildContext_Pi16(t *testing.T) {
	const t0 = "2026-05-01T00:00:0"
	at := func(sec string) string { return "177759360" + sec + "000" } // t0+sec+".000Z" in Unix milliseconds
	user := func(id, parent, content string) string {
		return piLine("message", id, parent, t0+"1.000Z", msg("user", content))
	}
	asst := func(id, parent, content string) string {
		return piLine("message", id, parent, t0+"2.000Z", `"message":{"role":"assistant","content":`+content+`,"provider":"p","model":"m"}`)
	}
	sys := func(id, parent, content string) string {
		return piLine("message", id, parent, t0+"3.000Z", msg("system", content))
	}
	edit := func(id, parent, target, replacement string) string {
		if replacement == "" {
			return piLine("context_edit", id, parent, t0+"4.000Z", `"targetId":"`+target+`"`)
		}
		return piLine("context_edit", id, parent, t0+"4.000Z", `"targetId":"`+target+`"`, `"replacement":`+replacement)
	}
	bash := piLine("message", "x", "a", t0+"5.000Z", `"message":{"role":"bashExecution","command":"ls","output":"o","exitCode":0}`)
	comp := func(id, parent, firstKept string, extra ...string) string {
		return piLine("compaction", id, parent, t0+"6.000Z", append([]string{`"summary":"sum"`, `"firstKeptEntryId":"` + firstKept + `"`, `"tokensBefore":9`}, extra...)...)
	}
	summary := `{"role":"compactionSummary","summary":"sum","tokensBefore":9,"timestamp":` + at("6") + `}`
	tests := []struct {
		name    string
		version int // the header's; 3 when 0
		lines   []string
		leaf    string // "" = active leaf
		llm     bool
		kept    string
		msgs    []string // every message, byte for byte
		errLine int      // a bad_line error at this line instead
	}{
		{name: "a string replaces a user message's content as it is",
			lines: []string{user("u", "", `"my password is hunter2"`), edit("e", "u", "u", `{"content":"[redacted]"}`)},
			kept:  "u", msgs: []string{`{"role":"user","content":"[redacted]"}`}},
		{name: "a string for an assistant message becomes a text block, in content's place",
			lines: []string{user("u", "", `"q"`), asst("a", "u", `[{"type":"text","text":"long answer"}]`), edit("e", "a", "a", `{"content":"short"}`)},
			kept:  "u a", msgs: []string{`{"role":"user","content":"q"}`, `{"role":"assistant","content":[{"type":"text","text":"short"}],"provider":"p","model":"m"}`}},
		{name: "the last edit wins, one written before its target too",
			lines: []string{user("u", "", `"q"`), edit("e1", "u", "a", `{"content":[{"type":"text","text":"first"}]}`),
				asst("a", "e1", `[{"type":"text","text":"x"}]`), edit("e2", "a", "a", `{"content":[{"type":"text","text":"second"}]}`)},
			kept: "u a", msgs: []string{`{"role":"user","content":"q"}`, `{"role":"assistant","content":[{"type":"text","text":"second"}],"provider":"p","model":"m"}`}},
		{name: "an edit written before its target applies",
			lines: []string{edit("e", "", "u", `{"content":"[before]"}`), user("u", "e", `"secret"`)},
			kept:  "u", msgs: []string{`{"role":"user","content":"[before]"}`}},
		{name: "null removes the entry's messages",
			lines: []string{user("a", "", `"q"`), bash, edit("e", "x", "x", "null"), user("u", "e", `"next"`)},
			kept:  "a u", msgs: []string{`{"role":"user","content":"q"}`, `{"role":"user","content":"next"}`}},
		{name: "an edit on another branch changes nothing",
			lines: []string{user("u", "", `"secret"`), edit("e", "u", "u", `{"content":"[redacted]"}`), user("v", "u", `"other branch"`)},
			leaf:  "v", kept: "u v", msgs: []string{`{"role":"user","content":"secret"}`, `{"role":"user","content":"other branch"}`}},
		{name: "a non-null edit leaves a bash run and a branch summary as they are",
			lines: []string{user("a", "", `"q"`), bash, edit("e1", "x", "x", `{"content":"y"}`),
				piLine("branch_summary", "b", "e1", t0+"7.000Z", `"fromId":"a"`, `"summary":"went off"`), edit("e2", "b", "b", `{"content":"z"}`)},
			kept: "a x b", msgs: []string{`{"role":"user","content":"q"}`, `{"role":"bashExecution","command":"ls","output":"o","exitCode":0}`,
				`{"role":"branchSummary","summary":"went off","fromId":"a","timestamp":` + at("7") + `}`}},
		{name: "a replacement without content leaves the message without one",
			lines: []string{user("u", "", `"q"`), edit("e", "u", "u", `{"note":"x"}`)},
			kept:  "u", msgs: []string{`{"role":"user"}`}},
		{name: "an edit without a replacement fails where it would edit (pi throws)",
			lines:   []string{user("u", "", `"q"`), edit("e", "u", "u", ""), user("v", "e", `"next"`)},
			errLine: 3},
		{name: "an edit without a replacement of a bash run changes nothing",
			lines: []string{user("a", "", `"q"`), bash, edit("e", "x", "x", "")},
			kept:  "a x", msgs: []string{`{"role":"user","content":"q"}`, `{"role":"bashExecution","command":"ls","output":"o","exitCode":0}`}},
		{name: "a compaction's kept range loses its system messages and its summarised edits; its systemMessage comes first",
			lines: []string{user("a", "", `"1"`), edit("e1", "a", "b", `{"content":"summarised edit"}`), user("b", "e1", `"2"`),
				sys("s1", "b", `"tools: read"`), edit("e2", "s1", "a", `{"content":"edit of a summarised entry"}`),
				comp("k", "e2", "b", `"systemMessage":{"role":"system","content":"tools: read, edit","timestamp":1}`),
				sys("s2", "k", `null`), user("c", "s2", `"3"`)},
			kept: "k k b s2 c", msgs: []string{`{"role":"system","content":"tools: read, edit","timestamp":1}`, summary,
				`{"role":"user","content":"2"}`, `{"role":"system","content":""}`, `{"role":"user","content":"3"}`}},
		{name: "null removes a compaction's systemMessage and summary",
			lines: []string{user("a", "", `"1"`), comp("k", "a", "a", `"systemMessage":{"role":"system","content":"s"}`), edit("e", "k", "k", "null")},
			kept:  "a", msgs: []string{`{"role":"user","content":"1"}`}},
		{name: "null content is filled; a custom message without content gets []",
			lines: []string{user("u", "", `null`), piLine("message", "a", "u", t0+"2.000Z", `"message":{"role":"assistant","provider":"p","model":"m"}`),
				piLine("custom_message", "c", "a", t0+"3.000Z", `"customType":"note"`, `"display":true`)},
			kept: "u a c", msgs: []string{`{"role":"user","content":[]}`, `{"role":"assistant","provider":"p","model":"m","content":[]}`,
				`{"role":"custom","customType":"note","content":[],"display":true,"timestamp":` + at("3") + `}`}},
		{name: "--llm passes system messages on", llm: true,
			lines: []string{sys("s", "", `"you are pi"`), user("u", "s", `"q"`)},
			kept:  "s u", msgs: []string{`{"role":"system","content":"you are pi"}`, `{"role":"user","content":"q"}`}},
		{name: "usage entries give nothing and can be the leaf",
			lines: []string{user("u", "", `"q"`), piLine("usage", "g", "u", t0+"8.000Z", `"kind":"title"`, `"provider":"p"`, `"model":"m"`, `"usage":{"input":1}`)},
			kept:  "u", msgs: []string{`{"role":"user","content":"q"}`}},
		{name: "version 2: an edit of a hookMessage replaces it (pi migrates it to custom)", version: 2,
			lines: []string{piLine("message", "h", "", t0+"1.000Z", `"message":{"role":"hookMessage","customType":"lint","content":"3 issues","display":true}`),
				edit("e", "h", "h", `{"content":"edited"}`)},
			kept: "h", msgs: []string{`{"role":"hookMessage","customType":"lint","content":"edited","display":true}`}},
		{name: "version 3: a hookMessage is no role an edit changes",
			lines: []string{piLine("message", "h", "", t0+"1.000Z", `"message":{"role":"hookMessage","content":"old"}`),
				edit("e", "h", "h", `{"content":"edited"}`)},
			kept: "h", msgs: []string{`{"role":"hookMessage","content":"old"}`}},
		{name: "version 1: an edit names no entry (pi gives the entries random ids)", version: 1,
			lines: []string{`{"type":"message","timestamp":"` + t0 + `1.000Z","message":{"role":"user","content":"q"}}` + "\n",
				`{"type":"context_edit","timestamp":"` + t0 + `2.000Z","targetId":"L2","replacement":null}` + "\n"},
			kept: "L2", msgs: []string{`{"role":"user","content":"q"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.version
			if v == 0 {
				v = 3
			}
			header := `{"type":"session","version":` + string(rune('0'+v)) + `,"id":"ctx16","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/w"}` + "\n"
			if v == 1 {
				header = `{"type":"session","id":"ctx16","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/w"}` + "\n"
			}
			path := testutil.MustWriteFile(t, t.TempDir(), "s.jsonl", []byte(header+strings.Join(tt.lines, "")))
			c, err := pureContextErr(t, path, tt.leaf)
			if tt.errLine != 0 {
				var je *errs.Error
				if !errors.As(err, &je) || je.Code != errs.CodeBadLine || je.Line != tt.errLine {
					t.Fatalf("BuildContext = %v, want bad_line at line %d", err, tt.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.llm {
				c = c.ForLLM()
			}
			if got := strings.Join(c.KeptEntryIDs, " "); got != tt.kept {
				t.Errorf("keptEntryIds = %s, want %s", got, tt.kept)
			}
			var got []string
			for _, m := range c.Messages {
				got = append(got, string(m))
			}
			if strings.Join(got, "\n") != strings.Join(tt.msgs, "\n") {
				t.Errorf("messages =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.msgs, "\n"))
			}
		})
	}
}
