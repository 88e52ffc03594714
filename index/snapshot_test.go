package index

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// A reader sees a session wholly before or wholly after a writer's update
// (docs/indexing.md "Keeping the index current"): each read is one statement, so one
// snapshot, and checks that the session row agrees with its entry rows and
// its active marks.
func TestSessionWriter_ReadersSeeWholeUpdates(t *testing.T) {
	ctx := context.Background()
	path := testutil.MustTempDB(t)
	w := mustOpen(t, path)
	r := mustOpen(t, path)
	s := &Session{Path: "/s.jsonl", SessionID: "s", Dialect: "plain"}
	var ids []string
	next := func(k int) []Entry {
		var out []Entry
		for i := 0; i < k; i++ {
			id := fmt.Sprintf("e%d", len(ids))
			e := Entry{EntryID: id, Type: "message", Line: len(ids) + 1, Length: 1, Text: []byte("word")}
			if len(ids) > 0 {
				p := ids[len(ids)-1]
				e.ParentID = &p
			}
			ids = append(ids, id)
			out = append(out, e)
		}
		return out
	}
	if _, err := w.Replace(ctx, s, next(1), nil, nil); err != nil {
		t.Fatal(err)
	}
	const check = `SELECT s.entries = (SELECT count(*) FROM entries e WHERE e.sid = s.sid)
		AND s.active_leaf = (SELECT entry_id FROM entries e WHERE e.sid = s.sid ORDER BY seq DESC LIMIT 1)
		AND s.entries = (SELECT count(*) FROM entries e WHERE e.sid = s.sid AND e.active = 1)
		FROM sessions s WHERE s.path = '/s.jsonl'`
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad error
	reads := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			var ok bool
			if err := r.db.GetContext(ctx, &ok, check); err != nil {
				bad = err
				return
			}
			reads++
			if !ok {
				bad = fmt.Errorf("a reader saw a half-written session (read %d)", reads)
				return
			}
		}
	}()
	for round := 0; round < 60 && bad == nil; round++ {
		sw, err := w.BeginAppend(ctx, s.SID)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 3; k++ { // several batches of rows in one update
			if err := sw.AddEntries(ctx, next(40)); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if bad != nil {
		t.Fatal(bad)
	}
	if reads < 20 {
		t.Fatalf("only %d reads ran during the updates; the test saw too little", reads)
	}
}
