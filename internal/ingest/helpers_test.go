package ingest_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/pgtest"
)

// The tests of this package write an index with an Indexer and check it
// with the index's own queries (index.DB): the dump, the sessions, the
// leaves, a path, a search. The helpers below ask those questions as the
// commands do, without package archive.

func TestMain(m *testing.M) { pgtest.Main(m) }

// mustOpen opens (creating) the index at dbPath for writing and closes it
// when the test ends.
func mustOpen(tb testing.TB, dbPath string) *ingest.Indexer {
	tb.Helper()
	ix, err := ingest.Open(context.Background(), dbPath)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

// mustDump is the canonical dump of the index of ix (index.DB.Dump).
func mustDump(t *testing.T, ix *ingest.Indexer) string {
	t.Helper()
	var b bytes.Buffer
	if err := ix.DB().Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sessionsOf lists every session the index of ix holds, as `grove sessions`
// does: most recently modified first.
func sessionsOf(ctx context.Context, ix *ingest.Indexer) ([]index.Session, error) {
	return ix.DB().Sessions(ctx, index.SessionFilter{})
}

// session is the session at the absolute path name, else the one whose
// id is name or starts with it.
func session(ctx context.Context, ix *ingest.Indexer, name string) (*index.Session, error) {
	if filepath.IsAbs(name) {
		return ix.DB().SessionByPath(ctx, name)
	}
	found, err := ix.DB().SessionsByIDPrefix(ctx, name)
	if err != nil || len(found) != 1 {
		return nil, fmt.Errorf("session %q: %d found (%v)", name, len(found), err)
	}
	return &found[0], nil
}

// leaf is one leaf of a session: its entry and whether it is the
// session's active leaf.
type leaf struct {
	index.Leaf
	Active bool
}

// leavesOf lists the leaves of the session name names (session), each
// marked active when it is the session's active leaf (index.DB.Leaves).
func leavesOf(ctx context.Context, ix *ingest.Indexer, name string) ([]leaf, error) {
	s, err := session(ctx, ix, name)
	if err != nil {
		return nil, err
	}
	rows, err := ix.DB().Leaves(ctx, s.SID)
	if err != nil {
		return nil, err
	}
	var out []leaf
	for _, l := range rows {
		out = append(out, leaf{Leaf: l, Active: s.ActiveLeaf != nil && *s.ActiveLeaf == l.EntryID})
	}
	return out, nil
}

// pathOf is the path from the root to leafID in the session name names
// (session), by the index's recursive query (index.DB.Path).
func pathOf(ctx context.Context, ix *ingest.Indexer, name, leafID string) (*struct{ Entries []index.Entry }, error) {
	s, err := session(ctx, ix, name)
	if err != nil {
		return nil, err
	}
	entries, err := ix.DB().Path(ctx, s.SID, leafID)
	if err != nil {
		return nil, err
	}
	return &struct{ Entries []index.Entry }{entries}, nil
}

// searchAnswer is what a search says of the index: a page of hits, their
// total, and whether (for how many sessions) the search text is still
// being built.
type searchAnswer struct {
	Hits        []index.Hit
	Total       int
	TextPending bool
	Pending     int
}

// search runs query over the index of ix, limit hits (20 when 0), as
// `grove search` does over the entries.
func search(ctx context.Context, ix *ingest.Indexer, query string, limit int) (*searchAnswer, error) {
	q, err := index.ParseQuery(query)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = 20
	}
	res, err := ix.DB().Search(ctx, index.SearchParams{Query: q, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := &searchAnswer{Hits: res.Hits, Total: res.Total}
	if pending, err := ix.DB().TextPending(ctx); err == nil && pending {
		out.TextPending = true
		out.Pending, _ = ix.DB().CountSessions(ctx)
	}
	return out, nil
}

// mustGenerated writes a small generated corpus (internal/corpusgen: pi of
// every version and plain sessions, branches, compactions, forks, Chinese,
// damaged files) and returns its directory.
func mustGenerated(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "generated")
	if _, err := corpusgen.Generate(context.Background(), dir, corpusgen.Options{
		Seed: 7, Size: 3 << 20, MaxSession: 96 << 10, DamageRate: 0.1, ChineseShare: 0.2, ForkRate: 0.1, PlainShare: 0.1}); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// mustSQL runs stmts on the SQLite file at path with a plain connection
// (no grove) and closes it.
func mustSQL(tb testing.TB, path string, stmts ...string) {
	tb.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}

func mustRead(tb testing.TB, p string) []byte {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
