package testutil

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// MustAnswerAlike asks h for each of targets alone (Host set to host),
// each must answer 200, then asks them again from 8 goroutines, 20
// requests each in a mixed order, and fails tb for every answer that is
// not 200 or differs from the one alone (grove serve's handlers run many
// requests at once; run it under -race).
func MustAnswerAlike(tb testing.TB, h http.Handler, host string, targets []string) {
	tb.Helper()
	get := func(target string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	want := map[string]string{} // the answer of each, asked alone
	for _, target := range targets {
		w := get(target)
		if w.Code != http.StatusOK {
			tb.Fatalf("GET %s = %d: %s", target, w.Code, clip(w.Body.String()))
		}
		want[target] = w.Body.String()
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*20)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				target := targets[(g*7+i*3)%len(targets)]
				w := get(target)
				switch {
				case w.Code != http.StatusOK:
					errs <- fmt.Sprintf("GET %s = %d: %s", target, w.Code, clip(w.Body.String()))
				case w.Body.String() != want[target]:
					errs <- fmt.Sprintf("GET %s answered otherwise than alone:\n%s", target, FirstDiff(w.Body.String(), want[target]))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		tb.Error(e)
	}
}

// clip is s cut to 300 bytes, for a message.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
