package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Hub sends Server-Sent Events to the pages open on /events: a notice
// that sessions changed, never their text (SPEC §9). Its zero value is
// not ready: use NewHub.
type Hub struct {
	mu   sync.Mutex
	subs map[chan struct{}]bool
	gen  int           // notices sent so far
	last []byte        // the last notice's data line
	next chan struct{} // closed by the next Notify (Next)
	done chan struct{}
	// Heartbeat is the period of the comment line that keeps an idle
	// stream open through proxies; 0 means 25 s.
	Heartbeat time.Duration
}

// NewHub returns a Hub with no subscriber.
func NewHub() *Hub {
	return &Hub{subs: map[chan struct{}]bool{}, done: make(chan struct{}), next: make(chan struct{})}
}

// Next returns a channel closed by the next Notify (or Close).
func (h *Hub) Next() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next
}

// Notify tells every open page that the sessions with these ids changed
// (none: any may have, as when a file was removed). The data is
// {"n":N,"sessions":[ids]}, JSON on one line, so no text from a session
// can start a line of the stream. It never blocks: a page that has not
// taken the last notice yet gets the newest, not two; a page that missed
// one (two notices before it read) is told every session changed.
func (h *Hub) Notify(sessions []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	close(h.next)
	h.next = make(chan struct{})
	if sessions == nil {
		sessions = []string{}
	}
	h.last, _ = json.Marshal(struct {
		N        int      `json:"n"`
		Sessions []string `json:"sessions"`
	}{h.gen, sessions})
	for c := range h.subs {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// Close ends every stream (the server is stopping).
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.done:
	default:
		close(h.done)
	}
}

// ServeHTTP is /events: "event: ready" first, then an "event: changed"
// with Notify's data for each notice, until the page goes or the hub
// closes.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	c := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[c] = true
	gen := h.gen
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.subs, c)
		h.mu.Unlock()
	}()
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	fmt.Fprintf(w, "retry: 2000\nevent: ready\ndata: %d\n\n", gen)
	fl.Flush()
	beat := h.Heartbeat
	if beat <= 0 {
		beat = 25 * time.Second
	}
	t := time.NewTicker(beat)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		case <-t.C:
			fmt.Fprint(w, ": beat\n\n")
		case <-c:
			h.mu.Lock()
			data := h.last
			if h.gen > gen+1 { // more than one since the last sent: say all
				data = fmt.Appendf(nil, `{"n":%d,"sessions":[]}`, h.gen)
			}
			gen = h.gen
			h.mu.Unlock()
			fmt.Fprintf(w, "event: changed\ndata: %s\n\n", data)
		}
		fl.Flush()
	}
}
