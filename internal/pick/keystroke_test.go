package pick

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grove-sessions/grove/archive"
)

// TestKeystrokeToScreen measures the picker's keystroke-to-screen time on
// the index GROVE_PICK_DB names (BENCHMARKS.md; skipped without it): for
// each word of GROVE_PICK_WORDS (default: a common word, a rare one, a CJK
// one, a two-word query), typed a key at a time, the time from the key to
// the frame that shows its whole answer — the name filter, the full-text
// search's sessions — drawn by View, then the time until the selected
// session's leaves are drawn too (they are read after the list).
// The model runs its commands as bubbletea does (each in a goroutine) and
// the next key waits for the frame, so each time is one key's latency,
// without the terminal's own drawing. It prints every time and a summary;
// it asserts nothing about speed.
func TestKeystrokeToScreen(t *testing.T) {
	db := os.Getenv("GROVE_PICK_DB")
	if db == "" {
		t.Skip("GROVE_PICK_DB is not set: the keystroke measurement runs on an index you name (BENCHMARKS.md)")
	}
	words := []string{"timeout", "zeppelin", "数据库", "parser yaml"}
	if w := os.Getenv("GROVE_PICK_WORDS"); w != "" {
		words = strings.Split(w, ",")
	}
	ctx := context.Background()
	a, err := archive.OpenExisting(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var lists, wholes []time.Duration
	for _, word := range words {
		m := New(ctx, a, Options{})
		msgs := make(chan tea.Msg, 64)
		var run func(tea.Cmd)
		run = func(c tea.Cmd) {
			if c == nil {
				return
			}
			go func() {
				msg := c()
				if b, ok := msg.(tea.BatchMsg); ok {
					for _, c := range b {
						run(c)
					}
					return
				}
				msgs <- msg
			}()
		}
		settle := func(done func() bool) {
			for !done() {
				msg := <-msgs
				_, c := m.Update(msg)
				run(c)
			}
		}
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
		start := time.Now()
		run(m.loadSessions)
		settle(func() bool { return m.loaded })
		t.Logf("%q: %d sessions read in %s", word, len(m.all), time.Since(start).Round(time.Millisecond))
		var times []string
		for _, r := range word {
			start := time.Now()
			_, c := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			run(c)
			q := strings.TrimSpace(m.input.Value())
			settle(func() bool { return q == "" || m.textQuery == q && !m.searching })
			_ = m.screen()
			list := time.Since(start)
			settle(func() bool {
				s := m.selected()
				if s == nil {
					return true
				}
				_, ok := m.leaves[s.Path]
				_, bad := m.leavesErr[s.Path]
				return ok || bad
			})
			_ = m.screen()
			whole := time.Since(start)
			lists, wholes = append(lists, list), append(wholes, whole)
			times = append(times, fmt.Sprintf("%q %s/%s (%d sessions)", q, list.Round(100*time.Microsecond), whole.Round(100*time.Microsecond), len(m.shown)))
			if s := m.selected(); s != nil && whole-list > 100*time.Millisecond {
				t.Logf("%q: the leaves of %s (%d entries, %d leaves, %d bytes) took %s", q, s.Path, s.Entries, s.Leaves, s.FileSize, whole-list)
			}
		}
		t.Logf("%s", strings.Join(times, ", "))
	}
	for _, x := range []struct {
		what string
		d    []time.Duration
	}{{"the list with its full-text sessions", lists}, {"the leaves pane too", wholes}} {
		slices.Sort(x.d)
		t.Logf("%d keystrokes, %s: median %s, 90th percentile %s, max %s", len(x.d), x.what, x.d[len(x.d)/2].Round(100*time.Microsecond),
			x.d[len(x.d)*9/10].Round(100*time.Microsecond), x.d[len(x.d)-1].Round(100*time.Microsecond))
	}
}
