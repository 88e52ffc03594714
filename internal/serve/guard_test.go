package serve_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/serve"
	"github.com/grove-sessions/grove/internal/testutil"
)

// specCSP is SPEC §9's Content-Security-Policy, as written there (not
// serve.CSP: the test holds the code to the spec).
const specCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// fakeAPI stands in for grove --json: it answers an empty document.
func fakeAPI(_ context.Context, args []string, w io.Writer) int {
	io.WriteString(w, "{}\n")
	return 0
}

// A Host header must name the listening address or localhost with its
// port (SPEC §9: DNS rebinding); anything else is 403 before routing.
func TestGuard_Host(t *testing.T) {
	f := mustServer(t, nil, "pi")
	for _, tt := range []struct {
		host string
		want int
	}{
		{testAddr, http.StatusOK},
		{"localhost:" + testPort, http.StatusOK},
		{"LocalHost:" + testPort, http.StatusOK},
		{"evil.example", http.StatusForbidden},
		{"evil.example:" + testPort, http.StatusForbidden},
		{"localhost:7421", http.StatusForbidden},
		{"localhost", http.StatusForbidden}, // port 80, not ours
		{"127.0.0.1", http.StatusForbidden},
		{"127.0.0.1:7421", http.StatusForbidden},
		{"127.0.0.1.evil.com:" + testPort, http.StatusForbidden},
		{"localhost.evil.com:" + testPort, http.StatusForbidden},
		{"evil.localhost:" + testPort, http.StatusForbidden},
		{"127.0.0.2:" + testPort, http.StatusForbidden},
		{"[::1]:" + testPort, http.StatusForbidden}, // not the address it listens on
		{"127.0.0.1:" + testPort + ".evil.com", http.StatusForbidden},
		{"", http.StatusForbidden},
	} {
		for _, target := range []string{"/", "/static/app.js", "/search?q=login"} {
			if got := do(t, f.h, http.MethodGet, target, tt.host); got.Status != tt.want {
				t.Errorf("GET %s with Host %q = %d, want %d", target, tt.host, got.Status, tt.want)
			}
		}
	}
}

// On every interface (AnyIP) a Host that is an IP literal with the port
// passes, a name (which DNS can rebind) does not.
func TestGuard_HostAnyIP(t *testing.T) {
	f := mustServer(t, func(o *serve.Options) {
		o.AnyIP, o.Hosts = true, []string{"0.0.0.0:" + testPort, "myhost:" + testPort}
	}, "pi")
	for _, tt := range []struct {
		host string
		want int
	}{
		{"192.168.1.5:" + testPort, http.StatusOK},
		{"10.0.0.1:" + testPort, http.StatusOK},
		{"[fe80::1]:" + testPort, http.StatusOK},
		{"[::1]:" + testPort, http.StatusOK},
		{"localhost:" + testPort, http.StatusOK},
		{"myhost:" + testPort, http.StatusOK}, // named in Hosts (the machine's name)
		{"192.168.1.5:7421", http.StatusForbidden},
		{"192.168.1.5", http.StatusForbidden},
		{"evil.example:" + testPort, http.StatusForbidden},
		{"192.168.1.5.nip.io:" + testPort, http.StatusForbidden},
		{"127.1:" + testPort, http.StatusForbidden},
		{"0x7f000001:" + testPort, http.StatusForbidden},
		{"", http.StatusForbidden},
	} {
		if got := do(t, f.h, http.MethodGet, "/", tt.host); got.Status != tt.want {
			t.Errorf("AnyIP: GET / with Host %q = %d, want %d", tt.host, got.Status, tt.want)
		}
	}
}

// Only GET and HEAD: any other method is 405 with Allow, wherever it is
// sent; HEAD answers as GET does (net/http drops the body).
func TestGuard_Methods(t *testing.T) {
	f := mustServer(t, func(o *serve.Options) { o.API, o.Events = fakeAPI, serve.NewHub() }, "pi")
	targets := []string{"/", "/search?q=login", "/s/5b7e2c14", "/s/5b7e2c14/9e2b4d87", "/static/app.js", "/api/sessions", "/events", "/nope"}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND", "get"} {
		for _, target := range targets {
			got := do(t, f.h, m, target, testAddr)
			if got.Status != http.StatusMethodNotAllowed {
				t.Errorf("%s %s = %d, want 405", m, target, got.Status)
			}
			if a := got.Header.Get("Allow"); a != "GET, HEAD" {
				t.Errorf("%s %s: Allow %q, want \"GET, HEAD\"", m, target, a)
			}
		}
	}
	for _, target := range []string{"/", "/w?path=%2Fworkspace%2Fdemo-app", "/search?q=login", "/search", "/s/5b7e2c14", "/s/5b7e2c14/9e2b4d87", "/static/app.css", "/api/sessions"} {
		g := get(t, f.h, target)
		h := do(t, f.h, http.MethodHead, target, testAddr)
		if h.Status != http.StatusOK || g.Status != http.StatusOK {
			t.Errorf("HEAD %s = %d, GET = %d; want 200 for both", target, h.Status, g.Status)
		}
		if ht, gt := h.Header.Get("Content-Type"), g.Header.Get("Content-Type"); ht != gt {
			t.Errorf("HEAD %s: Content-Type %q, GET's is %q", target, ht, gt)
		}
	}
}

// Every answer carries SPEC §9's headers: pages, static files, the API,
// errors of every kind, the refusals and the event stream.
func TestGuard_Headers(t *testing.T) {
	f := mustServer(t, func(o *serve.Options) { o.API, o.Events = fakeAPI, serve.NewHub() }, "pi", "plain")
	// An ambiguous id: a second file with v3-tree's header.
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), f.dir, "copy/v3-tree.jsonl")
	mustIndex(t, f.db, f.dir)
	for _, tt := range []struct {
		method, target, host string
		status               int
	}{
		{"GET", "/", testAddr, 200},
		{"GET", "/w?path=%2Fworkspace%2Fdemo-app", testAddr, 200},
		{"GET", "/s/chapter-tree", testAddr, 200},
		{"GET", "/s/chapter-tree/a-alt", testAddr, 200},
		{"GET", "/search?q=login", testAddr, 200},
		{"GET", "/static/app.js", testAddr, 200},
		{"GET", "/static/app.css", testAddr, 200},
		{"GET", "/static/icon.svg", testAddr, 200},
		{"GET", "/static/transcript.css", testAddr, 200},
		{"GET", "/api/", testAddr, 200},
		{"GET", "/api/sessions", testAddr, 200},
		{"GET", "/api/sessions?nope=1", testAddr, 400},
		{"GET", "/api/nope", testAddr, 404},
		{"GET", "/events", testAddr, 200},
		{"HEAD", "/events", testAddr, 200},
		{"GET", "/nope", testAddr, 404},
		{"GET", "/static/nope.js", testAddr, 404},
		{"GET", "/static/..%2fserver.go", testAddr, 404},
		{"GET", "/s/nosuchsession", testAddr, 404},
		{"GET", "/s/5b7e2c14", testAddr, 300},
		{"GET", "/w?path=relative", testAddr, 400},
		{"GET", "/search?q=x&sort=nope", testAddr, 400},
		{"GET", "/static/../go.mod", testAddr, 307},
		{"GET", "/", "evil.example", 403},
		{"GET", "/static/app.js", "", 403},
		{"GET", "/events", "evil.example:" + testPort, 403},
		{"POST", "/", testAddr, 405},
		{"DELETE", "/api/sessions", testAddr, 405},
		{"OPTIONS", "/static/app.js", testAddr, 405},
	} {
		got := do(t, f.h, tt.method, tt.target, tt.host)
		if tt.status != 0 && got.Status != tt.status {
			t.Errorf("%s %s (Host %q) = %d, want %d", tt.method, tt.target, tt.host, got.Status, tt.status)
		}
		for name, want := range map[string]string{
			"Content-Security-Policy": specCSP,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
		} {
			if v := got.Header.Values(name); len(v) != 1 || v[0] != want {
				t.Errorf("%s %s (Host %q, %d): %s = %q, want [%q]", tt.method, tt.target, tt.host, got.Status, name, v, want)
			}
		}
	}
}

// The paths a request names never reach a file: /static/ serves only its
// named embedded files and lists nothing, and /s/ takes a session id
// (and ?file= only among the files the index lists for that id), never a
// path. Each is 404, or a redirect inside the server that ends in a 404
// or one of its pages; no answer holds a file's bytes.
func TestGuard_Paths(t *testing.T) {
	f := mustServer(t, nil, "pi", "plain")
	other := f.dir + "/plain/chapter-tree.jsonl" // a real session file, of another id
	secrets := map[string]string{
		"go.mod":       "module github.com/grove-sessions/grove",
		"server.go":    "package serve",
		"/etc/passwd":  "root:x:0:0",
		"the session":  `"type":"session"`,
		"the chapter":  mustRead(t, other)[:60],
		"a directory":  "<pre>",
		"index.db":     "SQLite format 3",
		"embedded dir": `href="app.js"`,
	}
	for _, target := range []string{
		"/static/",
		"/static",
		"/static/.",
		"/static/../go.mod",
		"/static/../../go.mod",
		"/static/..%2fserver.go",
		"/static/..%2f..%2fgo.mod",
		"/static/%2e%2e/x",
		"/static/%2e%2e%2fserver.go",
		"/static/.%2e/server.go",
		"/static/%2fetc%2fpasswd",
		"/static/app.js/",
		"/static/app.js%00.css",
		"/static/static/app.js",
		"/s/..%2f..%2fetc%2fpasswd",
		"/s/%2fetc%2fpasswd",
		"/s/" + url.PathEscape(other),
		"/s/..%5c..%5cetc%5cpasswd",
		"/s/foo.jsonl",
		"/s/chapter-tree.jsonl",
		"/s/5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13?file=/etc/passwd",
		"/s/5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13?file=" + url.QueryEscape(other),
		"/s/5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13/9e2b4d87?file=/etc/passwd",
		"/s/%2e%2e",
		"/s/%2e%2e/%2e%2e",
		"/s/../../etc/passwd",
		"/s/./x",
		"/../go.mod",
		"/%2e%2e/go.mod",
		"/index.db",
		"//evil.example/",
		"//evil.example/%2e%2e/x",
		"/.//evil.example/",
		"/static//evil.example",
	} {
		seen := map[string]bool{}
		got := get(t, f.h, target)
		at := target
		for hop := 0; got.Status >= 300 && got.Status < 400 && got.Status != http.StatusMultipleChoices; hop++ {
			loc := got.Header.Get("Location")
			u, err := url.Parse(loc)
			if err != nil || u.IsAbs() || u.Host != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(loc, "//") ||
				strings.Contains(u.Path, "..") {
				t.Fatalf("GET %s: redirect to %q leaves the server or keeps ..", at, loc)
			}
			if hop > 3 || seen[loc] {
				t.Fatalf("GET %s: redirects go round (%q)", target, loc)
			}
			seen[loc] = true
			at = loc
			got = get(t, f.h, loc)
		}
		switch {
		case got.Status == http.StatusNotFound:
		case got.Status == http.StatusOK && at != target && strings.HasPrefix(got.Header.Get("Content-Type"), "text/html"):
			// a redirect to one of the pages (such as / for /static/..)
		default:
			t.Errorf("GET %s (at %s) = %d %s, want 404 or a redirect inside", target, at, got.Status, got.Header.Get("Content-Type"))
		}
		for what, b := range secrets {
			if strings.Contains(got.Body, b) {
				t.Errorf("GET %s (at %s) answered the bytes of %s", target, at, what)
			}
		}
	}
}

// The pages answer many requests at once over one reader archive: 8
// goroutines × 20 requests of every kind of page, each answering what it
// answers alone (run it with -race; cmd/grove's TestServe_Concurrent
// mixes in /api).
func TestPages_Concurrent(t *testing.T) {
	f := mustServer(t, func(o *serve.Options) { o.API = fakeAPI }, allTestdata...)
	targets := []string{"/", "/w?path=%2Fworkspace%2Fdemo-app", "/s/5b7e2c14", "/s/5b7e2c14/9e2b4d87", "/s/5b7e2c14/b7395fc2?at=6a1f9e07",
		"/s/e4c1a7b2?full=1", "/s/chapter-tree/a-alt", "/s/context-compact", "/search?q=login", "/search?q=README&role=user",
		"/static/app.js", "/api/sessions", "/s/" + url.PathEscape(hostileID), "/s/" + url.PathEscape(hostileID) + "/a2"}
	testutil.MustAnswerAlike(t, f.h, testAddr, targets)
}
