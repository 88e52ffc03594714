package archive_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// pathWant is an expected PathTo answer: ids root first, or an error.
type pathWant struct {
	leaf   string
	ids    string // "e01 e02"; empty when an error is expected
	code   errs.Code
	id     string // the error's id
	parent string // missing_parent's parent
	text   string // the start of the error's message, as the case's .expected.txt says it
	line   int    // the error's line, where the case names one (0: not checked)
}

type diagWant struct {
	code   errs.Code
	line   int
	offset int64
	text   string // part of the message, optional
}

// The damaged files of ../shared/cases (copied into testdata/cases), with
// what each .expected.txt says grove must report.
var caseTests = []struct {
	file     string
	state    jsonl.State
	entries  string
	warnings []diagWant
	errors   []diagWant
	paths    []pathWant
}{
	{file: "01-unterminated-tail", state: jsonl.StateNeedsRepair, entries: "e01 e02",
		warnings: []diagWant{{errs.CodeUnterminatedTail, 4, 433, "158 bytes"}},
		paths:    []pathWant{{leaf: "e02", ids: "e01 e02"}, {leaf: "e03", code: errs.CodeUnknownEntry, id: "e03"}}},
	{file: "01b-whitespace-tail", state: jsonl.StateOK, entries: "e01 e02",
		paths: []pathWant{{leaf: "e02", ids: "e01 e02"}}},
	{file: "02-fused-line", state: jsonl.StateDamaged, entries: "e01 e02 e05",
		errors: []diagWant{{errs.CodeBadLine, 4, 431, "invalid JSON"}},
		paths: []pathWant{{leaf: "e05", code: errs.CodeMissingParent, id: "e05", parent: "e04"},
			{leaf: "e02", ids: "e01 e02"}}},
	{file: "03-nul-byte-line", state: jsonl.StateDamaged, entries: "e01 e02 e03 e04",
		errors: []diagWant{{errs.CodeBadLine, 4, 437, "NUL"}},
		paths:  []pathWant{{leaf: "e04", ids: "e01 e02 e03 e04"}}},
	{file: "05-blank-lines-line-numbers", state: jsonl.StateDamaged, entries: "e01 e03",
		errors: []diagWant{{errs.CodeBadLine, 5, 250, "invalid JSON"}},
		paths:  []pathWant{{leaf: "e03", ids: "e01 e03"}}},
	{file: "07-missing-parent", state: jsonl.StateOK, entries: "e01 e02 e03 e04 e05",
		paths: []pathWant{{leaf: "e05", code: errs.CodeMissingParent, id: "e04", parent: "x9f3c2a1"},
			{leaf: "e03", ids: "e01 e02 e03"}}},
	{file: "09-parent-cycle", state: jsonl.StateOK, entries: "e01 e02 e03 e04 e05 e06",
		paths: []pathWant{{leaf: "e05", code: errs.CodeCycle, id: "e04", text: "cycle: e04 -> e03 -> e02 -> e04", line: 5},
			{leaf: "e02", code: errs.CodeCycle, id: "e02", text: "cycle: e02 -> e04 -> e03 -> e02"},
			{leaf: "e06", code: errs.CodeCycle, id: "e06", text: "cycle: e06 -> e06", line: 7}, {leaf: "e01", ids: "e01"}}},
	{file: "12-enospc-tainted-writer", state: jsonl.StateNeedsRepair, entries: "e01 e02",
		warnings: []diagWant{{errs.CodeUnterminatedTail, 4, 436, "203 bytes"}},
		paths:    []pathWant{{leaf: "e02", ids: "e01 e02"}}},
	{file: "14-torn-utf8-codepoint", state: jsonl.StateDamaged, entries: "e01 e03 e04",
		errors: []diagWant{{errs.CodeBadLine, 3, 248, "invalid UTF-8 at byte column 162"}},
		paths:  []pathWant{{leaf: "e04", ids: "e01 e03 e04"}}},
	{file: "16-bom-first-line", state: jsonl.StateOK, entries: "e01 e02",
		paths: []pathWant{{leaf: "e02", ids: "e01 e02"}}},
	{file: "17-crlf-lone-cr", state: jsonl.StateDamaged, entries: "e01 e02 e05",
		errors: []diagWant{{errs.CodeBadLine, 4, 420, "invalid JSON"}},
		paths:  []pathWant{{leaf: "e05", ids: "e01 e02 e05"}}},
}

func checkDiags(t *testing.T, kind string, got []*errs.Error, want []diagWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %v, want %d", kind, got, len(want))
		return
	}
	for i, w := range want {
		g := got[i]
		if g.Code != w.code || g.Line != w.line || g.Offset != w.offset || !strings.Contains(g.Message, w.text) {
			t.Errorf("%s[%d] = %s line %d offset %d %q, want %s line %d offset %d containing %q",
				kind, i, g.Code, g.Line, g.Offset, g.Message, w.code, w.line, w.offset, w.text)
		}
	}
}

func ids(es []jsonl.Entry) string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return strings.Join(out, " ")
}

func checkPath(t *testing.T, how string, got string, err error, w pathWant) {
	t.Helper()
	if w.ids != "" {
		if err != nil || got != w.ids {
			t.Errorf("%s(%q) = %q, %v; want %q", how, w.leaf, got, err, w.ids)
		}
		return
	}
	e, ok := err.(*errs.Error)
	if !ok || e.Code != w.code || e.ID != w.id || e.Parent != w.parent {
		t.Errorf("%s(%q) = %q, %v; want %s id %q parent %q", how, w.leaf, got, err, w.code, w.id, w.parent)
		return
	}
	if !strings.HasPrefix(e.Message, w.text) {
		t.Errorf("%s(%q): message %q, want it to start %q", how, w.leaf, e.Message, w.text)
	}
	if w.line != 0 && e.Line != w.line {
		t.Errorf("%s(%q): line %d, want %d", how, w.leaf, e.Line, w.line)
	}
	if w.code == errs.CodeCycle && strings.Join(e.Loop, " -> ") != strings.TrimPrefix(w.text, "cycle: ") {
		t.Errorf("%s(%q): loop %v, want %s", how, w.leaf, e.Loop, w.text)
	}
}

// Every file in cases/ gives what its .expected.txt says, read in memory
// (PathTo) and through the index (recursive CTE).
func TestCases(t *testing.T) {
	ctx := context.Background()
	for _, tc := range caseTests {
		t.Run(tc.file, func(t *testing.T) {
			path := testutil.Testdata(t, filepath.Join("cases", tc.file+".jsonl"))
			s, err := archive.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if s.ID != "sess-0001" || s.Dialect != jsonl.Pi || s.Workspace != "/tmp/demo" {
				t.Errorf("session %q dialect %s workspace %q, want sess-0001 pi /tmp/demo", s.ID, s.Dialect, s.Workspace)
			}
			if got := ids(s.Entries); got != tc.entries {
				t.Errorf("entries = %q, want %q", got, tc.entries)
			}
			if s.Result.State() != tc.state {
				t.Errorf("state = %s, want %s", s.Result.State(), tc.state)
			}
			checkDiags(t, "warnings", s.Result.Warnings, tc.warnings)
			checkDiags(t, "errors", s.Result.Errors, tc.errors)

			// Strict recovery fails on the same first bad line.
			_, _, strictErr := jsonl.ReadFile(path, jsonl.Strict)
			if len(tc.errors) > 0 {
				if e, ok := strictErr.(*errs.Error); !ok || e.Line != tc.errors[0].line || e.Code != errs.CodeBadLine {
					t.Errorf("strict read = %v, want bad_line at line %d", strictErr, tc.errors[0].line)
				}
			} else if strictErr != nil {
				t.Errorf("strict read = %v, want no error", strictErr)
			}

			a := mustOpenArchive(t, testutil.MustTempDB(t))
			if _, err := a.Index(ctx, archive.IndexOptions{Files: []string{path}}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.paths {
				p, err := archive.PathTo(s.Entries, w.leaf)
				checkPath(t, "PathTo", ids(p), err, w)
				var got []string
				res, err := a.Path(ctx, path, w.leaf)
				if err == nil {
					for _, e := range res.Entries {
						got = append(got, e.EntryID)
					}
				}
				checkPath(t, "CTE path", strings.Join(got, " "), err, w)
			}
			rep, err := a.Verify(ctx, "")
			if err != nil || rep.Mismatches != 0 || rep.Stale != 0 {
				t.Errorf("verify = %+v, %v; want clean", rep, err)
			}
		})
	}
}
