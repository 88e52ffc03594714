package serve_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/serve"
	"github.com/grove-sessions/grove/internal/testutil"
)

// testPort and testAddr are the listening address the handlers under test
// are told of; no socket is opened (httptest.NewRequest).
const (
	testPort = "7420"
	testAddr = "127.0.0.1:" + testPort
)

// fixture is a serve.Server over a real index of copies of testdata
// sessions.
type fixture struct {
	h    *serve.Server
	a    *archive.Archive // the pages' (a reader, as grove serve's)
	dir  string           // the copied sessions
	db   string
	opts serve.Options
}

// mustServer copies the *.jsonl files under each of testdata's dirs to a
// temporary folder (keeping their relative paths), indexes them with
// archive.OpenForWrite and Index into a temporary index file, opens that
// index for reading and returns a handler serve.New made over it, told it
// listens on testAddr. edit, when not nil, changes the Options first (set
// API or Events, say).
// hostileNames are the names testdata files get in the test's root: a
// name the repository cannot hold (Go's module zips refuse <, & and ' in
// file names, so `go install` of the module would fail), given at copy.
var hostileNames = map[string]string{"claude-hostile.jsonl": `claude-<i>&'x.jsonl`}

func mustServer(tb testing.TB, edit func(*serve.Options), dirs ...string) *fixture {
	tb.Helper()
	ctx := context.Background()
	f := &fixture{dir: tb.TempDir(), db: testutil.MustTempDB(tb)}
	for _, d := range dirs {
		src := testutil.Testdata(tb, d)
		err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			rel, err := filepath.Rel(testutil.Testdata(tb, ""), p)
			if err != nil {
				return err
			}
			if name, ok := hostileNames[filepath.Base(rel)]; ok {
				rel = filepath.Join(filepath.Dir(rel), name)
			}
			testutil.MustCopy(tb, p, f.dir, rel)
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	mustIndex(tb, f.db, f.dir)
	var err error
	if f.a, err = archive.Open(ctx, f.db); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.a.Close() })
	f.opts = serve.Options{Archive: f.a, Port: testPort, Hosts: []string{testAddr}}
	if edit != nil {
		edit(&f.opts)
	}
	f.h = serve.New(f.opts)
	return f
}

// mustIndex indexes the sessions under root into the index db, as grove
// serve's writer does (archive.OpenForWrite, then Index), and closes it.
func mustIndex(tb testing.TB, db, root string) {
	tb.Helper()
	ctx := context.Background()
	w, err := archive.OpenForWrite(ctx, db, func(m string) { tb.Logf("index: %s", m) })
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	sum, err := w.Index(ctx, archive.IndexOptions{Roots: []string{root}})
	if err != nil {
		tb.Fatal(err)
	}
	if len(sum.Failed) > 0 {
		tb.Fatalf("index: %d files failed: %v", len(sum.Failed), sum.Failed)
	}
}

// answer is one response, its body read whole.
type answer struct {
	Status int
	Header http.Header
	Body   string
}

// do sends method target with Host host ("" for an empty Host header) to
// h and returns the answer. target is sent as is: "/static/../x" reaches
// the handler unclean. A GET of /events is sent with a context already
// cancelled, so the stream answers its headers and first event and ends.
func do(tb testing.TB, h http.Handler, method, target, host string) answer {
	tb.Helper()
	r := httptest.NewRequest(method, target, nil)
	r.Host = host
	if strings.HasPrefix(target, "/events") {
		ctx, cancel := context.WithCancel(r.Context())
		cancel()
		r = r.WithContext(ctx)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	res := w.Result()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return answer{Status: res.StatusCode, Header: res.Header, Body: string(b)}
}

// get is do with GET and the listening address as Host.
func get(tb testing.TB, h http.Handler, target string) answer {
	tb.Helper()
	return do(tb, h, http.MethodGet, target, testAddr)
}

// mustRead is the content of a file (a fixture, a source file).
func mustRead(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
