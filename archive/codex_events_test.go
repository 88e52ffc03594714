package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// codexMixed is a rollout with event_msg copies before and after their
// items, a redacted copy and two agent messages of their own
// (testdata/codex, its .tree.json says which).
const codexMixed = "codex/rollout-2026-03-03T14-02-10-019ca7c1-3d4e-7f50-8a61-0b1c2d3e4f50.jsonl"

// codexView is what the index answers of a Codex session: each entry's
// id and role on the active path, the messages' count, the first message,
// and the ids of the search hits for words.
func codexView(t *testing.T, a *archive.Archive, path string, words ...string) string {
	t.Helper()
	ctx := context.Background()
	p, msgs, err := a.Messages(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, e := range p.Entries {
		r := ""
		if e.Role != nil {
			r = *e.Role
		}
		roles = append(roles, e.EntryID+":"+r)
	}
	first := "<nil>"
	if p.Session.FirstMessage != nil {
		first = *p.Session.FirstMessage
	}
	out := fmt.Sprintf("roles %s\nmessages %d\nfirst %q", strings.Join(roles, " "), len(msgs), first)
	for _, w := range words {
		res, err := a.Search(ctx, archive.SearchOptions{Query: w, Session: path, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.EntryID)
		}
		slices.Sort(ids)
		out += fmt.Sprintf("\nsearch %s: %v", w, ids)
	}
	return out
}

// A Codex rollout indexed as it grows, one line per refresh, ends as the
// same rollout indexed whole: an event appended after its item is paired
// with it through the turn's start the index keeps (jsonl.Resume.Turn),
// an event whose item is not there yet is read again once it is (SPEC
// §3.5, §6). The whole reading is the fixture's: L8 and L14 are messages
// of their own, the copies no hits.
func TestIndex_CodexPairingGrowingFile(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile(testutil.Testdata(t, codexMixed))
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"quokka", "wombat", "numbat", "REDACTED_MESSAGE", "REDACTED_TEXT"}

	dir := t.TempDir()
	name := filepath.Join(dir, filepath.Base(codexMixed))
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	whole := mustOpenArchive(t, filepath.Join(t.TempDir(), "whole.db"))
	if _, err := whole.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	want := codexView(t, whole, name, words...)
	if w := `roles L2:task_started L3:user_message L4:user L5: L6:reasoning L7:agent_reasoning L8:assistant L9:function_call L10:function_call_output L11: L12:agent_message L13:assistant L14:assistant L15:task_complete
messages 7
first "Rename the quokka helper"
search quokka: [L10 L4 L6 L9]
search wombat: [L8]
search numbat: [L14]
search REDACTED_MESSAGE: []
search REDACTED_TEXT: [L13]`; want != w {
		t.Fatalf("the rollout indexed whole:\n%s\nwant\n%s", want, w)
	}

	grown := t.TempDir()
	gname := filepath.Join(grown, filepath.Base(codexMixed))
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "grown.db"))
	lines := bytes.SplitAfter(data, []byte("\n"))
	appended := 0
	for i := 1; i < len(lines); i++ {
		if err := os.WriteFile(gname, bytes.Join(lines[:i+1], nil), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{grown}})
		if err != nil {
			t.Fatal(err)
		}
		appended += sum.Appended
	}
	if got := codexView(t, a, gname, words...); got != want {
		t.Errorf("the rollout indexed line by line:\n%s\nwant, as indexed whole:\n%s", got, want)
	}
	if appended < 5 {
		t.Errorf("%d refreshes read only the appended lines; want most of them to", appended)
	}
}

// An index made before schema 11 stored every Codex user_message and
// agent_message event as a copy: opening it with this grove has the next
// index read Codex files whole again, and their events that no response
// item repeats become messages.
func TestIndex_MigrationRereadsCodexEvents(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testutil.MustCopy(t, testutil.Testdata(t, "codex/rollout-2026-03-02T09-15-00-019ca2b0-7c11-7d20-9e3a-5b6c7d8e9f01.jsonl"), dir, "rollout-2026-03-02T09-15-00-019ca2b0-7c11-7d20-9e3a-5b6c7d8e9f01.jsonl")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "v3.jsonl")
	db := filepath.Join(t.TempDir(), "index.db")
	a := mustOpenArchive(t, db)
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	// What an older grove stored: the events' payload types as roles, no
	// first message.
	mustSQL(t, db, "UPDATE entries SET role = 'user_message' WHERE entry_id = 'L4' AND type = 'event_msg'",
		"UPDATE entries SET role = 'agent_message' WHERE entry_id = 'L7' AND type = 'event_msg'",
		"UPDATE sessions SET first_message = '' WHERE dialect = 'codex'",
		"DROP INDEX sessions_by_workspace_key", "ALTER TABLE sessions DROP COLUMN workspace_key", "ALTER TABLE entries DROP COLUMN kind", "ALTER TABLE entries DROP COLUMN path_kind", "ALTER TABLE sessions DROP COLUMN real_leaves", "ALTER TABLE sessions DROP COLUMN gone", "PRAGMA user_version = 9")

	a = mustOpenArchive(t, db)
	sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}})
	if err != nil || sum.Indexed != 1 || sum.Unchanged != 1 {
		t.Fatalf("Index after the migration = %+v, %v; want the Codex file read again, the pi file unchanged", sum, err)
	}
	_, msgs, err := a.Messages(ctx, "019ca2b0", "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.Resolve(ctx, "019ca2b0")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || s.FirstMessage == nil || *s.FirstMessage != "Find where the zeppelin retry budget is configured" {
		t.Errorf("after the migration: %d messages, first message %v; want 2 and the user_message's text", len(msgs), s.FirstMessage)
	}
}

// An index made before schema 11 read a file whose first line decides no
// dialect, or not the one its other lines decide (a Claude Code Agent SDK
// transcript, an agent-setting line first), as plain: opening it with this
// grove has the next index read plain files whole again, and such a file
// becomes what its lines say.
func TestIndex_MigrationRereadsPlainFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sdk := `{"type":"agent-setting","agentSetting":"triage","entrypoint":"sdk-cli"}` + "\n" +
		`{"parentUuid":null,"cwd":"/w/app","sessionId":"5d0c1e9a","type":"user","message":{"role":"user","content":"triage the failing build"},"uuid":"u1","timestamp":"2026-02-01T10:00:00.000Z"}` + "\n"
	testutil.MustWriteFile(t, dir, "5d0c1e9a.jsonl", []byte(sdk))
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "v3.jsonl")
	db := filepath.Join(t.TempDir(), "index.db")
	a := mustOpenArchive(t, db)
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	mustSQL(t, db, "UPDATE sessions SET dialect = 'plain', first_message = '' WHERE session_id = '5d0c1e9a'", "ALTER TABLE entries DROP COLUMN kind", "ALTER TABLE entries DROP COLUMN path_kind", "ALTER TABLE sessions DROP COLUMN real_leaves", "ALTER TABLE sessions DROP COLUMN gone", "PRAGMA user_version = 10")

	a = mustOpenArchive(t, db)
	sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}})
	if err != nil || sum.Indexed != 1 || sum.Unchanged != 1 {
		t.Fatalf("Index after the migration = %+v, %v; want the plain file read again, the pi file unchanged", sum, err)
	}
	s, err := a.Resolve(ctx, "5d0c1e9a")
	if err != nil || s.Dialect != "claude" || s.FirstMessage == nil || *s.FirstMessage != "triage the failing build" {
		t.Fatalf("after the migration: %+v, %v; want a claude session whose first message is the user's", s, err)
	}
}
