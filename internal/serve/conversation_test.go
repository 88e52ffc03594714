package serve_test

// The tree and the branch boxes read as a conversation (SPEC §9): entry
// ids drawn short, the full id in each link and in the title a pointer
// shows.

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/serve"
)

// rewindSession is a Claude Code session whose ids are UUIDs, as Claude
// Code writes them: a question, an answer, then two prompts after that
// answer written 35 minutes apart (a /rewind), each answered. Its ids are
// uuids[0..5]; uuids[2] and uuids[4] share their first 8 characters, so
// only the links and titles tell them apart.
const rewindID = "5e551011-0000-4000-8000-0000000000aa"

var rewindUUIDs = []string{
	"0a1b2c3d-1111-4111-8111-000000000001",
	"1b2c3d4e-2222-4222-8222-000000000002",
	"2c3d4e5f-3333-4333-8333-000000000003",
	"3d4e5f60-4444-4444-8444-000000000004",
	"2c3d4e5f-5555-4555-8555-000000000005",
	"4e5f6071-6666-4666-8666-000000000006",
}

// claudeLine is one committed Claude Code line: a user or assistant entry
// of rewindID with text as its message's content.
func claudeLine(tb testing.TB, uuid, parent, role, ts, text string) string {
	tb.Helper()
	var p any
	if parent != "" {
		p = parent
	}
	msg := map[string]any{"role": role, "content": text}
	if role == "assistant" {
		msg = map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": text}},
			"id": "msg_" + uuid[:8], "model": "claude-sonnet-4-5"}
	}
	b, err := json.Marshal(map[string]any{"parentUuid": p, "isSidechain": false, "type": role, "uuid": uuid,
		"timestamp": ts, "cwd": "/home/u/rewind", "sessionId": rewindID, "version": "2.1.78", "message": msg})
	if err != nil {
		tb.Fatal(err)
	}
	return string(b) + "\n"
}

// rewindFile is rewindSession's file, its messages' text long where long
// says: a word of that many characters with no space in it.
func rewindFile(tb testing.TB, long int) string {
	tb.Helper()
	u := rewindUUIDs
	word := strings.Repeat("x", long)
	return claudeLine(tb, u[0], "", "user", "2026-03-18T09:00:00.000Z", "Why does the build fail? "+word) +
		claudeLine(tb, u[1], u[0], "assistant", "2026-03-18T09:01:00.000Z", "The linker cannot find libfoo.\n\n```\n"+word+"\n```") +
		claudeLine(tb, u[2], u[1], "user", "2026-03-18T09:02:00.000Z", "Add it to the link line.") +
		claudeLine(tb, u[3], u[2], "assistant", "2026-03-18T09:03:00.000Z", "Added. "+word) +
		claudeLine(tb, u[4], u[1], "user", "2026-03-18T09:37:00.000Z", "No: vendor it instead.") +
		claudeLine(tb, u[5], u[4], "assistant", "2026-03-18T09:38:00.000Z", "Vendored under third_party/libfoo.")
}

// The tree draws every entry's id as its first serve.ShortID characters,
// with the full id as the link's title and in its href; the active leaf's
// line and the transcript's branch box do the same.
func TestTree_ShortIDs(t *testing.T) {
	w, file, _, ts := staleServer(t)
	path := filepath.Join(filepath.Dir(file), rewindID+".jsonl")
	if err := os.WriteFile(path, []byte(rewindFile(t, 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), path, true); err != nil {
		t.Fatal(err)
	}
	code, body := staleGet(t, ts.URL+"/s/"+rewindID+"?full=1")
	if code != 200 {
		t.Fatalf("GET tree = %d", code)
	}
	rows := regexp.MustCompile(`<a class="id" href="([^"]*)" title="([^"]*)">([^<]*)</a>`).FindAllStringSubmatch(body, -1)
	if len(rows) != len(rewindUUIDs) {
		t.Fatalf("tree draws %d entry links, want %d", len(rows), len(rewindUUIDs))
	}
	for i, r := range rows {
		href, full, shown := html.UnescapeString(r[1]), r[2], r[3]
		if full != rewindUUIDs[i] || shown != full[:serve.ShortID] || !strings.HasSuffix(href, "/"+full+"#entry-"+full) {
			t.Errorf("tree row %d: shows %q, title %q, href %q; want %q, the full id %q in title and href",
				i, shown, full, href, rewindUUIDs[i][:serve.ShortID], rewindUUIDs[i])
		}
	}
	active := rewindUUIDs[5]
	if want := fmt.Sprintf(`title="%s"><code>%s</code></a> (its transcript)`, active, active[:serve.ShortID]); !strings.Contains(body, want) {
		t.Errorf("the active leaf's line does not show %s short with its full id as title", active)
	}
	_, body = staleGet(t, ts.URL+"/s/"+rewindID+"/"+active)
	for _, id := range []string{rewindUUIDs[1], rewindUUIDs[2], rewindUUIDs[4]} {
		if want := fmt.Sprintf(`<code title="%s">%s</code>`, id, id[:serve.ShortID]); !strings.Contains(body, want) {
			t.Errorf("the branch box does not show %s as %s", id, want)
		}
	}
}
