package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/internal/testutil"
)

// genTree draws a session's entries: many roots, parents earlier, later
// (cycles) or missing, duplicated ids, claude sidechains.
func genTree(t *rapid.T, n int, claude bool) []Entry {
	pool := rapid.IntRange(1, n+2).Draw(t, "pool") // fewer ids than entries: duplicates
	id := func(label string) string { return fmt.Sprintf("e%d", rapid.IntRange(0, pool-1).Draw(t, label)) }
	var out []Entry
	for i := 0; i < n; i++ {
		e := Entry{Type: "message", Line: i + 2, Offset: int64(100 * (i + 1)), Length: 50, Text: []byte("w")}
		if rapid.IntRange(0, 3).Draw(t, "fresh") > 0 {
			e.EntryID = fmt.Sprintf("e%d", i%pool)
		} else {
			e.EntryID = id("dupID")
		}
		switch rapid.IntRange(0, 9).Draw(t, "parentKind") {
		case 0:
			// a root
		case 1:
			e.ParentID = ptr("missing")
		case 2, 3:
			e.ParentID = ptr(id("anyParent")) // earlier, later, itself
		default:
			if i > 0 {
				e.ParentID = ptr(out[rapid.IntRange(max(0, i-3), i-1).Draw(t, "recent")].EntryID)
			}
		}
		e.Side = claude && rapid.IntRange(0, 3).Draw(t, "side") == 0
		out = append(out, e)
	}
	return out
}

// writeSplit writes entries as one Replace of entries[:cuts[0]] (itself
// added in two calls, with other diagnostics between) and one Append per
// further cut, and returns the session's sid.
func writeSplit(t *rapid.T, d *DB, path, dialect string, entries []Entry, cuts []int, extra int) int64 {
	ctx := context.Background()
	es := slices.Clone(entries)
	w, err := d.BeginReplace(ctx, &Session{Path: path, SessionID: path, Dialect: dialect})
	if err != nil {
		t.Fatal(err)
	}
	half := cuts[0] / 2
	if err := w.AddEntries(ctx, es[:half]); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < extra; i++ {
		if err := w.AddDiagnostics(ctx, []Diagnostic{{Severity: "warning", Code: "unknown_type", Line: 1, Offset: int64(i), Message: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddEntries(ctx, es[half:cuts[0]]); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	sid := w.Session().SID
	for k := 1; k < len(cuts); k++ {
		w, err := d.BeginAppend(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddEntries(ctx, es[cuts[k-1]:cuts[k]]); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return sid
}

// storedFacts is every stored fact the tree facts decide, of session sid.
func storedFacts(t *rapid.T, d *DB, sid int64) string {
	var b strings.Builder
	var rows []string
	for _, q := range []string{
		`SELECT 'session entries=' || entries || ' leaves=' || leaves || ' active=' || quote(active_leaf) || ' duplicate=' || quote(duplicate_id) || ' state=' || state FROM sessions WHERE sid = ?1`,
		`SELECT 'diagnostic ' || seq || ' ' || severity || ' ' || code || ' ' || line || ' ' || offset || ' ' || message FROM diagnostics WHERE sid = ?1 ORDER BY seq`,
		`SELECT 'entry ' || seq || ' active=' || active FROM entries WHERE sid = ?1 ORDER BY seq`,
	} {
		rows = rows[:0]
		if err := d.db.Select(&rows, q, sid); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			b.WriteString(r + "\n")
		}
	}
	return b.String()
}

// The tree facts of a whole-file read, worked out in Go, equal those the
// SQL works out, on every stored row (sessions row, diagnostics, active
// marks), also when appends in random splits follow the whole read.
func TestTreeFacts_GoEqualsSQL(t *testing.T) {
	testutil.RapidChecks(t, 200, 2000)
	d := mustOpen(t, testutil.MustTempDB(t))
	round := 0
	rapid.Check(t, func(t *rapid.T) {
		round++
		dialect := rapid.SampledFrom([]string{"pi", "plain", "claude"}).Draw(t, "dialect")
		n := rapid.IntRange(1, 40).Draw(t, "n")
		entries := genTree(t, n, dialect == "claude")
		cuts := []int{rapid.IntRange(1, n).Draw(t, "first")}
		for cuts[len(cuts)-1] < n {
			cuts = append(cuts, rapid.IntRange(cuts[len(cuts)-1]+1, n).Draw(t, "cut"))
		}
		if rapid.Bool().Draw(t, "whole") {
			cuts = []int{n}
		}
		extra := rapid.IntRange(0, 2).Draw(t, "extra")
		sqlTreeFacts = true
		want := storedFacts(t, d, writeSplit(t, d, fmt.Sprintf("/%d-sql.jsonl", round), dialect, entries, cuts, extra))
		sqlTreeFacts = false
		got := storedFacts(t, d, writeSplit(t, d, fmt.Sprintf("/%d-go.jsonl", round), dialect, entries, cuts, extra))
		if got != want {
			t.Fatalf("Go tree facts differ from SQL's\n--- go\n%s--- sql\n%s", got, want)
		}
	})
}

// BenchmarkTreeFacts measures the Commit of a whole-file Replace of
// 50,000 small entries (a chain with a branch every 8 entries), where the
// tree facts are worked out, in Go ("go") and by the SQL ("sql"), the two
// interleaved; the rows' insertion is outside the timer. Run:
//
//	go test -run '^$' -bench BenchmarkTreeFacts ./index
func BenchmarkTreeFacts(b *testing.B) {
	ctx := context.Background()
	d := mustOpen(b, testutil.MustTempDB(b))
	var es []Entry
	for i := 0; i < 50000; i++ {
		e := Entry{EntryID: fmt.Sprintf("e%06d", i), Type: "message", Line: i + 1, Offset: int64(i * 80), Length: 79}
		if i > 0 {
			p := es[i-1].EntryID
			if i%8 == 0 {
				p = es[i-3].EntryID
			}
			e.ParentID = &p
		}
		es = append(es, e)
	}
	for _, way := range []string{"go", "sql", "go", "sql"} {
		b.Run(way, func(b *testing.B) {
			sqlTreeFacts = way == "sql"
			defer func() { sqlTreeFacts = false }()
			b.StopTimer()
			for i := 0; i < b.N; i++ {
				w, err := d.BeginReplace(ctx, &Session{Path: "/s.jsonl", SessionID: "s", Dialect: "plain"})
				if err != nil {
					b.Fatal(err)
				}
				if err := w.AddEntries(ctx, slices.Clone(es)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				err = w.Commit(ctx)
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
