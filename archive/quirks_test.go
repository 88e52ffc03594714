package archive_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// testdata/quirks/lone-surrogate.jsonl gives what its .expected.txt says
// (SPEC §2.9): every line kept with a lone_surrogate warning naming the
// field path, stored in the index like other warnings, state ok; search
// text shows U+FFFD, messages give the stored bytes, and the file is not
// changed.
func TestQuirks_LoneSurrogate(t *testing.T) {
	ctx := context.Background()
	path := testutil.Testdata(t, "quirks/lone-surrogate.jsonl")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		offset int64
		field  string
	}{{2, 115, "message.content"}, {3, 273, "message.content[1].text"}, {4, 570, "message.content[0].arguments.command"},
		{6, 1135, "name"}, {7, 1250, "message.content[0].text"}}

	s, err := archive.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(s.Entries); got != "s01 s02 s03 s04 s05 s06" || s.Result.State() != jsonl.StateOK || len(s.Result.Errors) != 0 {
		t.Fatalf("Load = entries %q, state %s, errors %v; want all six, ok, none", got, s.Result.State(), s.Result.Errors)
	}
	if len(s.Result.Warnings) != len(want) {
		t.Fatalf("warnings = %v, want %d", s.Result.Warnings, len(want))
	}
	for i, w := range want {
		g := s.Result.Warnings[i]
		if g.Code != errs.CodeLoneSurrogate || g.Line != w.line || g.Offset != w.offset || g.Field != w.field {
			t.Errorf("warnings[%d] = %s line %d offset %d field %q, want lone_surrogate line %d offset %d field %q",
				i, g.Code, g.Line, g.Offset, g.Field, w.line, w.offset, w.field)
		}
	}

	a := mustOpenArchive(t, testutil.MustTempDB(t))
	if _, err := a.Index(ctx, archive.IndexOptions{Files: []string{path}}); err != nil {
		t.Fatal(err)
	}
	row, err := a.Resolve(ctx, "lone-surrogate-0001")
	if err != nil {
		t.Fatal(err)
	}
	if row.State != "ok" || row.Name != "release \uFFFD" || row.Diagnostics != len(want) {
		t.Errorf("indexed session = state %s name %q, %d diagnostics; want ok, %q, %d", row.State, row.Name, row.Diagnostics, "release \uFFFD", len(want))
	}
	ds, err := archive.DBOf(a).Diagnostics(ctx, row.SID)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if i >= len(ds) || ds[i].Severity != "warning" || ds[i].Code != "lone_surrogate" || ds[i].Line != w.line || ds[i].Offset != w.offset || ds[i].Field != w.field {
			t.Errorf("stored diagnostics = %+v, want lone_surrogate warnings %+v", ds, want)
			break
		}
	}

	for q, id := range map[string]string{"green": "s01", "shipped": "s02"} {
		res, err := a.Search(ctx, archive.SearchOptions{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 || res.Hits[0].EntryID != id || !strings.Contains(res.Hits[0].Snippet, "\uFFFD") {
			t.Errorf("Search(%q) = %+v, want one hit on %s whose snippet shows U+FFFD", q, res.Hits, id)
		}
	}
	_, msgs, err := a.Messages(ctx, "lone-surrogate-0001", "s06")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 5 || !bytes.Contains(msgs[0], []byte(`ship it \ud83d"`)) {
		t.Errorf("Messages = %s, want 5 messages as stored, the first with its \\ud83d escape", msgs)
	}
	if rep, err := a.Verify(ctx, ""); err != nil || rep.Mismatches != 0 || rep.Stale != 0 || len(rep.Problems) != 0 {
		t.Errorf("Verify = %+v, %v; want clean", rep, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("the fixture changed")
	}
}

// testdata/quirks/duplicate-ids.jsonl gives what its .expected.txt says
// (SPEC §4 rule 1, §6): every duplicated id with all its lines, from
// recover, from the index's diagnostics and in verify's problems; PathTo
// and the CTE fail on the first id used again with all of its lines; and
// verify notices an index whose duplicate diagnostics are not the file's.
func TestQuirks_DuplicateIDs(t *testing.T) {
	ctx := context.Background()
	path := testutil.Testdata(t, "quirks/duplicate-ids.jsonl")
	const want = "4:473:e02:[3 4 8] 6:864:e01:[2 6]"

	res, err := jsonl.Recover(path, jsonl.Salvage)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Errors {
		got = append(got, fmt.Sprintf("%d:%d:%s:%v", e.Line, e.Offset, e.ID, e.Lines))
	}
	if strings.Join(got, " ") != want || res.State() != jsonl.StateDamaged || res.Entries != 8 {
		t.Errorf("Recover = %s (state %s, %d entries), want %s (damaged, 8)", strings.Join(got, " "), res.State(), res.Entries, want)
	}

	db := testutil.MustTempDB(t)
	a := mustOpenArchive(t, db)
	if _, err := a.Index(ctx, archive.IndexOptions{Files: []string{path}}); err != nil {
		t.Fatal(err)
	}
	row, err := a.Resolve(ctx, "duplicate-ids-0001")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := archive.DBOf(a).Diagnostics(ctx, row.SID)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for i, d := range ds {
		got = append(got, fmt.Sprintf("%d:%d:%s:%v", d.Line, d.Offset, d.ID, d.Lines))
		if i < len(res.Errors) && d.Message != res.Errors[i].Message {
			t.Errorf("stored message %q, recover says %q", d.Message, res.Errors[i].Message)
		}
	}
	if strings.Join(got, " ") != want || row.State != "damaged" {
		t.Errorf("stored diagnostics = %s (state %s), want %s (damaged)", strings.Join(got, " "), row.State, want)
	}

	s, err := archive.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, ferr := archive.PathTo(s.Entries, "e05")
	_, ierr := a.Path(ctx, path, "e05")
	for how, err := range map[string]error{"PathTo": ferr, "CTE path": ierr} {
		if e, ok := err.(*errs.Error); !ok || e.Code != errs.CodeDuplicateID || e.ID != "e02" || fmt.Sprint(e.Lines) != "[3 4 8]" || !strings.Contains(e.Message, "lines 3, 4, 8") {
			t.Errorf("%s(e05) = %v, want duplicate_id e02 naming lines [3 4 8]", how, err)
		}
	}

	rep, err := a.Verify(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, p := range rep.Problems {
		got = append(got, fmt.Sprintf("%s:%s:%v", p.Code, p.ID, p.Lines))
	}
	if strings.Join(got, " ") != "duplicate_id:e02:[3 4 8] duplicate_id:e01:[2 6]" || rep.Mismatches != 0 || rep.Duplicates != 2 || rep.Leaves != 1 {
		t.Errorf("Verify = %s, %d mismatches, %d duplicates, %d leaves; want both ids, 0, 2, 1", strings.Join(got, " "), rep.Mismatches, rep.Duplicates, rep.Leaves)
	}

	// An index that holds only the first duplicated id's diagnostic (what
	// an older grove stored) disagrees with the file, until index --force.
	mustExec(t, db, "DELETE FROM diagnostics WHERE code = 'duplicate_id' AND line = 6")
	rep, err = a.Verify(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	last := rep.Problems[len(rep.Problems)-1]
	if rep.Mismatches != 1 || last.Code != "mismatch" || strings.Join(last.Index, " ") != "e02:[3 4 8]" || strings.Join(last.File, " ") != "e02:[3 4 8] e01:[2 6]" {
		t.Errorf("Verify after losing a diagnostic = %d mismatches, last problem %+v; want the duplicate lists to differ", rep.Mismatches, last)
	}
	if _, err := a.Index(ctx, archive.IndexOptions{Files: []string{path}, Force: true}); err != nil {
		t.Fatal(err)
	}
	if rep, err = a.Verify(ctx, ""); err != nil || rep.Mismatches != 0 || len(rep.Problems) != 2 {
		t.Errorf("Verify after index --force = %+v, %v; want no mismatch, the two duplicates", rep, err)
	}
}

// mustExec runs one statement on the index at db through a connection of
// its own, as another process would.
func mustExec(tb testing.TB, db, stmt string) {
	tb.Helper()
	c, err := sql.Open("sqlite", db)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(stmt); err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
}
