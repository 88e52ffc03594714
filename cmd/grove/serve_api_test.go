package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/serve"
	"github.com/grove-sessions/grove/internal/testutil"
)

// serveFixture is grove serve's handler as runServe builds it
// (handlerOptions), over a real index of copies of testdata sessions.
type serveFixture struct {
	h   *serve.Server
	db  string
	dir string
}

// serveHost is the Host the handler is told it listens on.
const serveHost = "127.0.0.1:7420"

// mustServeFixture copies testdata's pi, plain, claude and quirks
// sessions (and a second copy of pi/v3-tree.jsonl, whose id is then
// ambiguous) to a temporary folder, indexes them with grove index and
// returns the handler over that index.
func mustServeFixture(tb testing.TB) *serveFixture {
	tb.Helper()
	f := &serveFixture{db: testutil.MustTempDB(tb), dir: tb.TempDir()}
	for _, glob := range []string{"pi/*.jsonl", "plain/*.jsonl", "claude/*.jsonl", "quirks/*.jsonl"} {
		if err := copyFixtures(testutil.Testdata(tb, glob), filepath.Join(f.dir, filepath.Dir(glob))); err != nil {
			tb.Fatal(err)
		}
	}
	testutil.MustCopy(tb, testutil.Testdata(tb, "pi/v3-tree.jsonl"), f.dir, "again/v3-tree.jsonl")
	if code, _, stderr := groveOn(tb, f.db)("index", "--root", f.dir); code != 0 {
		tb.Fatalf("grove index = %d: %s", code, stderr)
	}
	ra, err := archive.Open(context.Background(), f.db)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ra.Close() })
	f.h = serve.New(handlerOptions(f.db, ra, nil, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7420}))
	return f
}

// get answers GET target.
func (f *serveFixture) get(tb testing.TB, target string) (int, string, http.Header) {
	tb.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Host = serveHost
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	b, err := io.ReadAll(w.Result().Body)
	if err != nil {
		tb.Fatal(err)
	}
	return w.Code, string(b), w.Result().Header
}

// cli is `grove --db f.db --json ARGS...`: its exit status and stdout.
func (f *serveFixture) cli(tb testing.TB, args ...string) (int, string) {
	tb.Helper()
	var out bytes.Buffer
	code := run(context.Background(), append([]string{"grove", "--db", f.db, "--json"}, args...), &out, io.Discard)
	return code, out.String()
}

const (
	v3ID   = "5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13" // pi/v3-tree.jsonl, twice in the fixture: ambiguous
	v3Leaf = "b7395fc2"
	v2ID   = "e4c1a7b2-3f58-4d9e-a6b0-7c2d1e9f8a35" // pi/v2-branches.jsonl
)

// Each /api route answers the document `grove --json` prints for the
// same question, byte for byte, with 200 for exit status 0.
func TestServeAPI_SameAsCLI(t *testing.T) {
	f := mustServeFixture(t)
	v3 := filepath.Join(f.dir, "pi", "v3-tree.jsonl")
	leaves := f.mustLeaves(t, v2ID)
	leaf := leaves[len(leaves)-1]
	for _, tt := range []struct {
		target string
		args   []string
	}{
		{"/api/sessions", []string{"sessions"}},
		{"/api/sessions?dialect=claude", []string{"sessions", "--dialect", "claude"}},
		{"/api/sessions?workspace=%2Fhome%2Fdev&first=health", []string{"sessions", "--workspace", "/home/dev", "--first", "health"}},
		{"/api/workspaces", []string{"workspaces"}},
		{"/api/workspaces?workspace=%2Fhome", []string{"workspaces", "--workspace", "/home"}},
		{"/api/leaves", []string{"leaves"}},
		{"/api/leaves?session=" + v2ID[:8], []string{"leaves", "--session", v2ID[:8]}},
		{"/api/leaves?dialect=plain&workspace=%2Fworkspace", []string{"leaves", "--dialect", "plain", "--workspace", "/workspace"}},
		{"/api/branches", []string{"branches"}},
		{"/api/branches?session=" + v2ID, []string{"branches", "--session", v2ID}},
		{"/api/tree/" + v2ID, []string{"tree", v2ID}},
		{"/api/tree/" + v2ID[:6] + "?full=1&depth=2", []string{"tree", "--depth", "2", "--full", v2ID[:6]}},
		{"/api/tree/chapter-tree?flat=true", []string{"tree", "--flat", "chapter-tree"}},
		{"/api/tree/9d3f6b21?full=1", []string{"tree", "--full", "9d3f6b21"}},              // v1-linear: --full changes it
		{"/api/search?q=login&no-dedupe=true", []string{"search", "--no-dedupe", "login"}}, // v3-tree's copy: forks
		{"/api/path/" + v2ID, []string{"path", v2ID}},
		{"/api/path/" + v2ID + "/" + leaf, []string{"path", v2ID, leaf}},
		{"/api/path/" + v3ID + "/" + v3Leaf + "?file=" + url.QueryEscape(v3), []string{"path", v3, v3Leaf}},
		// ?file= picks one of the two files that share v3's id for a flag too.
		{"/api/leaves?session=" + v3ID + "&file=" + url.QueryEscape(v3), []string{"leaves", "--session", v3}},
		{"/api/search?q=login&session=" + v3ID + "&file=" + url.QueryEscape(v3), []string{"search", "--session", v3, "login"}},
		{"/api/messages/" + v2ID, []string{"messages", v2ID}},
		{"/api/messages/" + v2ID + "/" + leaf, []string{"messages", v2ID, leaf}},
		{"/api/context/" + v2ID, []string{"context", v2ID}},
		{"/api/context/" + v2ID + "/" + leaf, []string{"context", v2ID, leaf}},
		{"/api/context/context-compact", []string{"context", "context-compact"}},
		{"/api/context/" + v2ID + "/" + leaf + "?llm=1", []string{"context", "--llm", v2ID, leaf}},
		{"/api/verify", []string{"verify"}},
		{"/api/verify?session=chapter-tree", []string{"verify", "--session", "chapter-tree"}},
		{"/api/search?q=login", []string{"search", "login"}},
		{"/api/search?q=README&role=user&limit=2&offset=1&sort=relevance", []string{"search", "--role", "user", "--sort", "relevance", "--limit", "2", "--offset", "1", "README"}},
		{"/api/search?q=jwt&session=" + v2ID[:8] + "&branch=active&no-dedupe=1", []string{"search", "--session", v2ID[:8], "--branch", "active", "--no-dedupe", "jwt"}},
		{"/api/search?q=test&type=message&dialect=pi&since=2026-01-01&until=2026-12-31", []string{"search", "--dialect", "pi", "--type", "message", "--since", "2026-01-01", "--until", "2026-12-31", "test"}},
		{"/api/search?q=" + url.QueryEscape("-- --json"), []string{"search", "--", "-- --json"}},
		// all: every leaf, the agent's recording artifacts too, as --all.
		{"/api/sessions?all=1", []string{"sessions", "--all"}},
		{"/api/leaves?all=1&dialect=claude", []string{"leaves", "--dialect", "claude", "--all"}},
		{"/api/branches?all=true", []string{"branches", "--all"}},
		{"/api/tree/7f3c2a10?all=1", []string{"tree", "--all", "7f3c2a10"}},
	} {
		code, body, hdr := f.get(t, tt.target)
		exit, want := f.cli(t, tt.args...)
		if exit != 0 {
			t.Errorf("grove --json %s = %d: %s", strings.Join(tt.args, " "), exit, want)
			continue
		}
		if code != http.StatusOK || body != want {
			t.Errorf("GET %s = %d\n%s\nwant 200 and grove --json %s's\n%s", tt.target, code, cut300(body), strings.Join(tt.args, " "), cut300(want))
		}
		if ct := hdr.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", tt.target, ct)
		}
	}
}

// mustLeaves are the leaf ids of a session, by grove --json leaves.
func (f *serveFixture) mustLeaves(tb testing.TB, session string) []string {
	tb.Helper()
	code, out := f.cli(tb, "leaves", "--session", session)
	var doc struct {
		Leaves []struct {
			ID string `json:"id"`
		} `json:"leaves"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Leaves) == 0 {
		tb.Fatalf("grove leaves --session %s = %d, %v: %s", session, code, err, out)
	}
	var ids []string
	for _, l := range doc.Leaves {
		ids = append(ids, l.ID)
	}
	return ids
}

// A question grove cannot answer is an error document with the status of
// its code: the CLI's own document when the CLI ran, the server's (same
// shape) when the request was refused before it.
func TestServeAPI_Statuses(t *testing.T) {
	f := mustServeFixture(t)
	v3 := filepath.Join(f.dir, "pi", "v3-tree.jsonl")
	for _, tt := range []struct {
		target string
		status int
		code   string
		args   []string // the CLI's question, when its document is the answer
	}{
		{"/api/path/nosuchsession", 404, "unknown_session", []string{"path", "nosuchsession"}},
		{"/api/path/" + v2ID + "/nosuchentry", 404, "unknown_entry", []string{"path", v2ID, "nosuchentry"}},
		{"/api/tree/nosuchsession", 404, "unknown_session", []string{"tree", "nosuchsession"}},
		{"/api/leaves?session=nosuchsession", 404, "unknown_session", []string{"leaves", "--session", "nosuchsession"}},
		{"/api/path/" + v3ID, 300, "ambiguous_session", []string{"path", v3ID}},
		{"/api/messages/5b7e2c14/" + v3Leaf, 300, "ambiguous_session", []string{"messages", "5b7e2c14", v3Leaf}},
		{"/api/search?q=login&session=5b7e", 300, "ambiguous_session", []string{"search", "--session", "5b7e", "login"}},
		{"/api/path/duplicate-ids-0001/e05", 422, "duplicate_id", []string{"path", "duplicate-ids-0001", "e05"}},
		{"/api/search?q=x&sort=sideways", 400, "usage", []string{"search", "--sort", "sideways", "x"}},
		{"/api/search?q=x&since=yesterday-ish", 400, "usage", []string{"search", "--since", "yesterday-ish", "x"}},
		{"/api/search?q=x&role=bogus", 400, "usage", []string{"search", "--role", "bogus", "x"}},
		{"/api/search?q=x&role=User", 400, "usage", []string{"search", "--role", "User", "x"}},
		{"/api/sessions?dialect=cobol", 400, "usage", []string{"sessions", "--dialect", "cobol"}},
		{"/api/tree/" + v2ID + "?depth=deep", 400, "usage", []string{"tree", "--depth", "deep", v2ID}},
		// Refused by the server.
		{"/api/sessions?nope=1", 400, "usage", nil},
		{"/api/sessions?file=" + url.QueryEscape(v3), 400, "usage", nil},
		{"/api/search?q=login&file=" + url.QueryEscape(v3), 400, "usage", nil},
		{"/api/path/" + v2ID + "?depth=1", 400, "usage", nil},
		{"/api/search", 400, "usage", nil},
		{"/api/search?q=", 400, "usage", nil},
		{"/api/search?q=%20%20", 400, "usage", nil},
		// A session is named by id: a path there names no session.
		{"/api/leaves?session=" + url.QueryEscape(v3), 404, "unknown_session", nil},
		{"/api/leaves?session=..%2F..%2Fetc%2Fpasswd", 404, "unknown_session", nil},
		{"/api/verify?session=v3-tree.jsonl", 404, "unknown_session", nil},
		{"/api/leaves?session=5b7e&file=%2Fetc%2Fpasswd", 404, "unknown_session", nil},
		{"/api/sessions?workspace=relative", 400, "usage", nil},
		{"/api/path/" + url.PathEscape(v3), 404, "unknown_session", nil},
		{"/api/path/..%2F..%2Fetc%2Fpasswd", 404, "unknown_session", nil},
		{"/api/path/v3-tree.jsonl", 404, "unknown_session", nil},
		{"/api/path/" + v3ID + "?file=%2Fetc%2Fpasswd", 404, "unknown_session", nil},
		{"/api/path/" + v3ID + "?file=" + url.QueryEscape(filepath.Join(f.dir, "pi", "v2-branches.jsonl")), 404, "unknown_session", nil},
		{"/api/nope", 404, "not_found", nil},
		{"/api/path", 404, "not_found", nil},
	} {
		code, body, hdr := f.get(t, tt.target)
		if code != tt.status {
			t.Errorf("GET %s = %d, want %d: %s", tt.target, code, tt.status, cut300(body))
		}
		if ct := hdr.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", tt.target, ct)
		}
		var doc struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil || doc.Error.Message == "" || tt.code != "" && doc.Error.Code != tt.code {
			t.Errorf("GET %s: %q is not an error document with code %q (%v)", tt.target, cut300(body), tt.code, err)
		}
		if tt.args != nil {
			if exit, want := f.cli(t, tt.args...); exit == 0 || body != want {
				t.Errorf("GET %s answered\n%s\nwant grove --json %s's (exit %d)\n%s", tt.target, cut300(body), strings.Join(tt.args, " "), exit, cut300(want))
			}
		}
	}
}

// Pages and /api answer many requests at once, as a browser with several
// tabs and a script polling /api do: 8 goroutines × 20 mixed requests,
// all 200 (run it with -race).
func TestServe_Concurrent(t *testing.T) {
	f := mustServeFixture(t)
	leaves := f.mustLeaves(t, v2ID)
	targets := []string{
		"/", "/w?path=%2Fhome%2Fdev", "/s/" + v2ID, "/s/" + v2ID + "/" + leaves[0], "/s/chapter-tree?full=1", "/search?q=login",
		"/static/app.js", "/api/sessions", "/api/leaves", "/api/tree/" + v2ID, "/api/path/" + v2ID, "/api/messages/" + v2ID,
		"/api/context/context-compact", "/api/search?q=README", "/api/verify", "/api/workspaces", "/s/context-parallel",
	}
	testutil.MustAnswerAlike(t, f.h, serveHost, targets)
}

// cut300 is s cut to 300 bytes, for a message.
func cut300(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
