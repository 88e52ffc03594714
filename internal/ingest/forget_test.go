package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grove-sessions/grove/internal/ingest"
	keptpkg "github.com/grove-sessions/grove/internal/kept"
	"github.com/grove-sessions/grove/internal/pgtest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// keptStore stands for the kept store: it records what Forget told it.
type keptStore struct{ forgot []string }

func (k *keptStore) ForgetFile(_ context.Context, source, path string) error {
	k.forgot = append(k.forgot, source+"|"+path)
	return nil
}

// Forget removes the sessions, tells every Forgetter after the commit,
// and the records travel into a cold build of an emptied index: with
// every session forgotten, the next Index builds the index anew (cold.go)
// and still leaves the files out. In SQLite and PostgreSQL.
func TestIndexer_Forget(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			db := filepath.Join(dir, "index.db")
			if backend == "postgres" {
				if ok, why := pgtest.Available(); !ok {
					t.Skip(why)
				}
				db = pgtest.DB(t)
			}
			root := demoSessions(t, dir)
			ix := mustOpen(t, db)
			if _, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
				t.Fatal(err)
			}
			kept := &keptStore{}
			ix.AlsoForget(kept)
			files := []string{filepath.Join(root, "v2-branches.jsonl"), filepath.Join(root, "v3-tree.jsonl")}
			// Beside a SQLite index, the kept store's copies go too.
			store := keptpkg.Open(keptpkg.Dir(db))
			if backend == "sqlite" {
				for _, f := range files {
					w, err := store.Writer(ix.DB().Source(), f)
					if err != nil {
						t.Fatal(err)
					}
					if err := w.Append([]byte("{}\n")); err != nil {
						t.Fatal(err)
					}
					w.Close()
				}
			}
			if err := ix.Forget(ctx, files, nil); err != nil {
				t.Fatal(err)
			}
			src := ix.DB().Source()
			if want := []string{src + "|" + files[0], src + "|" + files[1]}; !slices.Equal(kept.forgot, want) {
				t.Errorf("the kept store was told %q, want %q", kept.forgot, want)
			}
			for _, f := range files {
				if n, err := store.Len(src, f); err != nil || n != 0 {
					t.Errorf("after Forget the kept store holds %d bytes of %s (%v), want none", n, f, err)
				}
			}
			if got, err := sessionsOf(ctx, ix); err != nil || len(got) != 0 {
				t.Fatalf("after Forget the index holds %d sessions (%v), want none", len(got), err)
			}
			sum, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Forgotten != 2 || sum.Files != 0 || sum.Indexed != 0 {
				t.Errorf("Index after Forget: %+v, want 2 forgotten, 0 files, 0 indexed", sum)
			}
			if got, _ := sessionsOf(ctx, ix); len(got) != 0 {
				t.Errorf("Index took %d forgotten sessions back", len(got))
			}
			// A path the index holds no session of is unknown_session,
			// and nothing is forgotten.
			if err := ix.Forget(ctx, []string{filepath.Join(root, "no-such.jsonl")}, nil); err == nil {
				t.Errorf("Forget of a path the index does not hold: no error")
			}
		})
	}
}

// FileIdentity's committed length is up to the last line feed: a torn
// tail is left out, a file with no line feed has none.
func TestFileIdentity_CommittedLength(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		want       int64
	}{
		{"empty", "", 0},
		{"no line feed", `{"a":1}`, 0},
		{"two lines", "{}\n{}\n", 6},
		{"torn tail", "{}\n{}\n{\"a\"", 6},
	} {
		p := testutil.MustWriteFile(t, dir, c.name+".jsonl", []byte(c.data))
		got, err := ingest.FileIdentity(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got.CommittedLen != c.want {
			t.Errorf("FileIdentity(%q).CommittedLen = %d, want %d", c.data, got.CommittedLen, c.want)
		}
		if got.StatKey != 0 {
			t.Errorf("FileIdentity(%q, 0).StatKey = %d, want 0 (mtime not older than the racy window)", c.data, got.StatKey)
		}
	}
	big := make([]byte, 200<<10)
	for i := range big {
		big[i] = 'x'
	}
	big[1000] = '\n'
	p := testutil.MustWriteFile(t, dir, "long-tail.jsonl", big)
	if got, err := ingest.FileIdentity(p, 0); err != nil || got.CommittedLen != 1001 {
		t.Errorf("FileIdentity of a line feed 199 KiB before the end: committed %d (%v), want 1001", got.CommittedLen, err)
	}
}

// A session whose file is gone when it is forgotten is recorded by the
// committed bytes the index last read: the same file put back stays out,
// another one in its place comes in.
func TestIndexer_ForgetGoneFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := demoSessions(t, dir)
	ix := mustOpen(t, filepath.Join(dir, "index.db"))
	if _, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "v3-tree.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := ix.Forget(ctx, []string{p}, nil); err != nil {
		t.Fatal(err)
	}
	testutil.MustWriteFile(t, root, "v3-tree.jsonl", data)
	sum, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Forgotten != 1 || sum.Indexed != 0 {
		t.Fatalf("Index with the forgotten file's bytes back: %+v, want 1 forgotten, 0 indexed", sum)
	}
	// Other bytes in its place: a session of its own, read.
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v1-linear.jsonl"), root, "v3-tree.jsonl")
	sum, err = ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Forgotten != 0 || sum.Indexed != 1 {
		t.Fatalf("Index with other bytes in the forgotten file's place: %+v, want 0 forgotten, 1 indexed", sum)
	}
}
