package serve_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/serve"
	"github.com/grove-sessions/grove/internal/testutil"
)

// staleServer indexes a copy of the v3 demo session and serves it with a
// hub: the writer archive, the session file, the hub and the server.
func staleServer(t *testing.T) (*archive.Archive, string, *serve.Hub, *httptest.Server) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	file := testutil.MustCopy(t, filepath.Join("..", "..", "testdata", "pi", "v3-tree.jsonl"), dir, "v3.jsonl")
	db := filepath.Join(dir, "index.db")
	w, err := archive.OpenForWrite(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if _, _, _, err := w.IndexFile(ctx, file, true); err != nil {
		t.Fatal(err)
	}
	r, err := archive.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	hub := serve.NewHub()
	ts := httptest.NewUnstartedServer(nil)
	port := ts.Listener.Addr().(*net.TCPAddr).Port
	ts.Config.Handler = serve.New(serve.Options{Archive: r, Events: hub, Port: fmt.Sprint(port), Hosts: []string{ts.Listener.Addr().String()}})
	ts.Start()
	t.Cleanup(ts.Close)
	return w, file, hub, ts
}

func staleGet(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// A session file an agent appended to since it was indexed: the tree and
// the transcript wait for the watch's next pass and answer what it
// indexed; without a pass they answer 409 after staleWait.
func TestServer_StaleWaitsForThePass(t *testing.T) {
	w, file, hub, ts := staleServer(t)
	line := `{"type":"message","id":"added01","parentId":"b7395fc2","timestamp":"2026-03-03T08:05:00.000Z","message":{"role":"user","content":[{"type":"text","text":"one more thing"}],"timestamp":1772525100000}}` + "\n"
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	go func() {
		time.Sleep(200 * time.Millisecond)
		if _, _, _, err := w.IndexFile(context.Background(), file, false); err != nil {
			t.Error(err)
		}
		hub.Notify([]string{"5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13"})
	}()
	code, body := staleGet(t, ts.URL+"/s/5b7e")
	if code != http.StatusOK || !strings.Contains(body, "added01") {
		t.Fatalf("GET /s/5b7e after an append = %d, want 200 with the new entry added01 (the page waits for the pass)", code)
	}

	// Appended again, and no pass comes: 409, saying the watch catches up.
	f, _ = os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(strings.ReplaceAll(line, "added01", "added02"))
	f.Close()
	code, body = staleGet(t, ts.URL+"/s/5b7e/added01")
	if code != http.StatusConflict || !strings.Contains(body, "stale_index") {
		t.Fatalf("GET a transcript of a file changed with no pass = %d, want 409 stale_index", code)
	}
}
