package main

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/serve"
	"github.com/grove-sessions/grove/internal/testutil"
)

// mustScriptFixture is grove serve's handler over an index of the session
// files of the script testdata/script/NAME.txtar, indexed with one grove
// index of the folder that holds them.
func mustScriptFixture(tb testing.TB, name string) *serveFixture {
	tb.Helper()
	f := &serveFixture{db: testutil.MustTempDB(tb), dir: tb.TempDir()}
	mustExtractScript(tb, name, f.dir)
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

// mustExtractScript writes the files of the script
// testdata/script/NAME.txtar below dir.
func mustExtractScript(tb testing.TB, name, dir string) {
	tb.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "script", name+".txtar"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, file := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(file.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, file.Data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

var sessionLink = regexp.MustCompile(`href="/s/([0-9a-f-]{36})"`)

// grove serve matches a workspace recorded on Windows as it is written,
// as the command line does (SPEC §3.3): /w?path= lists DIR's sessions and
// those below it whatever the spelling, /search and /api take such a
// workspace too, and /api answers what the CLI answers. The sessions are
// those of workspace_windows.txtar: Claude Code and Codex sessions
// recorded on Windows (e:\Workspace\app, E:/Workspace/app/sub,
// e:\WorkspaceX, C:\Users\ana\app) and a plain session whose workspace is
// an escaped folder name (-home-ana-app).
func TestServe_WindowsWorkspaces(t *testing.T) {
	f := mustScriptFixture(t, "workspace_windows")
	const (
		a = "aaaa1111-0000-4000-8000-000000000001" // e:\Workspace\app
		b = "bbbb2222-0000-4000-8000-000000000002" // E:/Workspace/app/sub
	)
	for _, tt := range []struct {
		path string
		want []string
	}{
		{`e:\Workspace`, []string{a, b}},
		{`E:/Workspace/app/`, []string{a, b}},
		{`e:\Workspace\app\sub`, []string{b}},
		{`E:\WorkspaceX`, []string{"cccc3333-0000-4000-8000-000000000003"}},
		{`c:\Users\ana`, []string{"5e1b7c2a-1111-4222-8333-000000000001"}},
	} {
		target := "/w?path=" + url.QueryEscape(tt.path)
		code, body, _ := f.get(t, target)
		if code != http.StatusOK {
			t.Errorf("GET %s = %d: %s", target, code, cut300(body))
			continue
		}
		var got []string
		for _, m := range sessionLink.FindAllStringSubmatch(body, -1) {
			if !slices.Contains(got, m[1]) {
				got = append(got, m[1])
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("GET %s links the sessions %q, want %q", target, got, tt.want)
		}
	}
	// The escaped folder name, as / lists it.
	if code, body, _ := f.get(t, "/w?path=-home-ana-app"); code != http.StatusOK || !strings.Contains(body, "escaped folder name") {
		t.Errorf("GET /w?path=-home-ana-app = %d: %s", code, cut300(body))
	}
	if code, body, _ := f.get(t, "/search?q=windows&workspace="+url.QueryEscape(`E:/Workspace`)); code != http.StatusOK ||
		!strings.Contains(body, a) || !strings.Contains(body, b) || strings.Contains(body, "cccc3333") {
		t.Errorf("GET /search?q=windows&workspace=E:/Workspace = %d, want the hits of %s and %s only: %s", code, a, b, cut300(body))
	}
	for _, tt := range []struct {
		target string
		args   []string
		n      int // sessions, leaves or hits in the answer
	}{
		{"/api/sessions?workspace=" + url.QueryEscape(`e:\Workspace`), []string{"sessions", "--workspace", `e:\Workspace`}, 2},
		{"/api/workspaces?workspace=" + url.QueryEscape(`E:/Workspace`), []string{"workspaces", "--workspace", `E:/Workspace`}, 2},
		{"/api/leaves?workspace=" + url.QueryEscape(`c:\Users`), []string{"leaves", "--workspace", `c:\Users`}, 1},
		{"/api/search?q=windows&workspace=" + url.QueryEscape(`e:\Workspace\app`), []string{"search", "--workspace", `e:\Workspace\app`, "windows"}, 4},
		{"/api/sessions?workspace=-home-ana-app", []string{"sessions", "--workspace=-home-ana-app"}, 1},
	} {
		code, body, _ := f.get(t, tt.target)
		exit, want := f.cli(t, tt.args...)
		if code != http.StatusOK || exit != 0 || body != want {
			t.Errorf("GET %s = %d\n%s\nwant 200 and grove --json %s's (exit %d)\n%s", tt.target, code, cut300(body), strings.Join(tt.args, " "), exit, cut300(want))
		}
		if n := strings.Count(body, `"workspace":`) + strings.Count(body, `"preview":`); n != tt.n {
			t.Errorf("GET %s: %d rows, want %d: %s", tt.target, n, tt.n, cut300(body))
		}
	}
	// A relative path means nothing to a browser: refused, as before.
	if code, body, _ := f.get(t, "/api/sessions?workspace=relative"); code != http.StatusBadRequest {
		t.Errorf("GET /api/sessions?workspace=relative = %d: %s", code, cut300(body))
	}
}

var workspaceLink = regexp.MustCompile(`href="/w\?path=([^"]*)"`)

// / lists workspaces and recent sessions in the order of grove workspaces
// and grove sessions (SPEC §8, §9): ties by name and path, and a session
// without entries (a Claude Code file of snapshots only, whose file time
// is now; a pi header alone) after every session with entries. The
// sessions are those of listing_order.txtar.
func TestServe_ListingOrder(t *testing.T) {
	f := mustScriptFixture(t, "listing_order")
	code, body, _ := f.get(t, "/")
	if code != http.StatusOK {
		t.Fatalf("GET / = %d: %s", code, cut300(body))
	}
	recent := body[strings.Index(body, "Recent sessions"):]
	var sessions []string
	for _, m := range regexp.MustCompile(`<span class="sid">([^<]+)</span>`).FindAllStringSubmatch(recent, -1) {
		sessions = append(sessions, m[1])
	}
	if want := []string{"z-branch", "a-chain", "m-chain", "dddd4444-0000-4000-8000-000000000004", "header-only"}; !slices.Equal(sessions, want) {
		t.Errorf("/ lists the recent sessions %q, want %q", sessions, want)
	}
	var workspaces []string
	for _, m := range workspaceLink.FindAllStringSubmatch(body[:strings.Index(body, "Recent sessions")], -1) {
		ws, err := url.QueryUnescape(m[1])
		if err != nil {
			t.Fatal(err)
		}
		workspaces = append(workspaces, ws)
	}
	if want := []string{"/ties/z", "/ties/a", "/ties/m", "/ties/h"}; !slices.Equal(workspaces, want) {
		t.Errorf("/ lists the workspaces %q, want %q", workspaces, want)
	}
	if i, j := strings.Index(body, "(no workspace)"), strings.Index(body, "/w?path=%2Fties%2Fh"); i < 0 || j < i {
		t.Errorf("/ lists the workspace of no name (a snapshot file) at %d, want it before /ties/h (%d), after every workspace with entries", i, j)
	}
}

// The resume commands serve shows run grove itself against serve's own
// index (SPEC §12): --db by its absolute path, whatever serve was given,
// so the line works pasted in any directory; at the default index, none.
func TestServe_GroveNamesIndex(t *testing.T) {
	f := mustServeFixture(t)
	ra, err := archive.Open(context.Background(), f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	t.Chdir(filepath.Dir(f.db))
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7420}
	if got, want := handlerOptions(filepath.Base(f.db), ra, nil, addr).Grove, "grove --db "+archive.ShellQuote(f.db); got != want {
		t.Errorf("serve --db %s: copied commands start %q, want %q", filepath.Base(f.db), got, want)
	}
	if got := handlerOptions(defaultDB(), ra, nil, addr).Grove; got != "grove" {
		t.Errorf("serve at the default index: copied commands start %q, want grove", got)
	}
}
