package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// sessionsByID lists the sessions of the index of ix by id.
func sessionsByID(tb testing.TB, ix *ingest.Indexer) map[string]index.Session {
	tb.Helper()
	ss, err := sessionsOf(context.Background(), ix)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]index.Session{}
	for _, s := range ss {
		out[s.SessionID] = s
	}
	return out
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// An append is read from the committed length: a user message appended
// moves modified to its time and keeps the first message; the first user
// message of a session that had none becomes its first message.
func TestIndex_AppendKeepsFirstMessageMovesModified(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := testutil.MustWriteFile(t, dir, "s.jsonl", []byte(
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-02-01T00:00:00.000Z","cwd":"/w"}`+"\n"+
			`{"type":"message","id":"a0","parentId":null,"timestamp":"2026-02-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}`+"\n"))
	a := mustOpen(t, filepath.Join(t.TempDir(), "index.db"))
	step := func(line string, wantFirst string, wantModified int64) {
		t.Helper()
		if line != "" {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(line + "\n"); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		sum, err := a.Index(ctx, ingest.IndexOptions{Roots: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		if line != "" && sum.Appended != 1 {
			t.Fatalf("Index after appending = %+v, want the file read from its committed length", sum)
		}
		s := sessionsByID(t, a)["s1"]
		if deref(s.FirstMessage) != wantFirst || deref(s.ModifiedMs) != wantModified {
			t.Errorf("after %q: first message %v, modified %v; want %q, %d", line, deref(s.FirstMessage), deref(s.ModifiedMs), wantFirst, wantModified)
		}
	}
	step("", "", 1769904001000)
	step(`{"type":"message","id":"u1","parentId":"a0","timestamp":"2026-02-01T00:00:09.000Z","message":{"role":"user","content":"first question","timestamp":1769904005000}}`,
		"first question", 1769904005000)
	step(`{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-02-01T00:01:00.000Z","message":{"role":"user","content":"second question"}}`,
		"first question", 1769904060000)
	// Entries that are not user or assistant messages do not move it.
	step(`{"type":"model_change","id":"m1","parentId":"u2","timestamp":"2026-02-01T01:00:00.000Z","provider":"p","modelId":"m"}`,
		"first question", 1769904060000)
}
