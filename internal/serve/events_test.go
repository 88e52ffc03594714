package serve_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/serve"
)

// readEvent reads one Server-Sent Event: its lines up to the blank one.
func readEvent(tb testing.TB, r *bufio.Reader) []string {
	tb.Helper()
	var lines []string
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			tb.Fatalf("event stream: %v after %q", err, lines)
		}
		l = strings.TrimSuffix(l, "\n")
		if l == "" {
			return lines
		}
		lines = append(lines, l)
	}
}

// A notice is one event with one data line whatever the session ids hold:
// an id with "\n\nevent: x" (or a lone CR, which ends a line in SSE too)
// cannot start a line of the stream.
func TestHub_NotifyOneDataLine(t *testing.T) {
	hub := serve.NewHub()
	hub.Heartbeat = time.Hour
	srv := httptest.NewServer(hub)
	defer srv.Close()
	defer hub.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	if got := readEvent(t, r); !slices.Contains(got, "event: ready") {
		t.Fatalf("first event %q, want event: ready", got)
	}
	ids := []string{"a\n\nevent: x\ndata: y", "b\r\nevent: z\r\n\r\n", "c\rid: 9\rretry: 1", "d\u2028e\u0085f"}
	hub.Notify(ids)
	got := readEvent(t, r)
	if len(got) != 2 || got[0] != "event: changed" || !strings.HasPrefix(got[1], "data: ") {
		t.Fatalf("the notice is %q, want one event: changed line and one data line", got)
	}
	if strings.ContainsRune(got[1], '\r') {
		t.Fatalf("the data line %q holds a CR", got[1])
	}
	var doc struct {
		N        int      `json:"n"`
		Sessions []string `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(got[1], "data: ")), &doc); err != nil || !slices.Equal(doc.Sessions, ids) {
		t.Fatalf("data %q = %+v (%v), want the ids %q", got[1], doc, err, ids)
	}
}
