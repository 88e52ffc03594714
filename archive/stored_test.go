package archive_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/pgtest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// storedBytes reads back every committed byte the index holds for the
// session at path, through the same reader the answers use.
func storedBytes(t testing.TB, a *archive.Archive, path string) []byte {
	t.Helper()
	ctx := context.Background()
	s, err := archive.DBOf(a).SessionByPath(ctx, path)
	if err != nil || s == nil {
		t.Fatalf("session %s: %v", path, err)
	}
	f, ok := archive.DBOf(a).OpenStored(s)
	if !ok {
		t.Fatal("OpenStored: the index keeps no bytes")
	}
	defer f.Close()
	got := make([]byte, s.CommittedLen)
	if _, err := f.ReadAt(got, 0); err != nil {
		t.Fatalf("read the stored bytes of %s: %v", path, err)
	}
	if n, err := f.ReadAt(make([]byte, 1), s.CommittedLen); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("a read at the committed length gave %d bytes, %v; want io.EOF", n, err)
	}
	return got
}

// committed is data up to and including its last LF (SPEC §2).
func committed(data []byte) []byte {
	return data[:bytes.LastIndexByte(data, '\n')+1]
}

// Whatever a session file goes through (written whole, appended to a line
// at a time, given a torn tail and then its end, rewritten with a changed
// line), the index in PostgreSQL holds exactly its committed bytes, in
// pieces cut at line ends, long lines whole (SPEC §2, §10).
func TestStoredBytes_AreTheCommittedBytes(t *testing.T) {
	testutil.RapidChecks(t, 20, 100)
	ctx := context.Background()
	url := pgtest.DB(t)
	a := mustOpenArchive(t, url)
	raw := pgtest.Open(t, url)
	old := index.BytesPiece
	index.BytesPiece = 300 // many pieces from small files
	t.Cleanup(func() { index.BytesPiece = old })
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	rapid.Check(t, func(rt *rapid.T) {
		var data []byte
		line := func(i int) []byte {
			text := strings.Repeat("字x", rapid.IntRange(0, 400).Draw(rt, "len"))
			parent := "null"
			if i > 0 {
				parent = fmt.Sprintf(`"e%d"`, i-1)
			}
			return fmt.Appendf(nil, `{"id":"e%d","parentId":%s,"timestamp":%d,"type":"message","message":{"role":"user","content":%q}}`+"\n", i, parent, 1700000000000+i, text)
		}
		n := rapid.IntRange(1, 12).Draw(rt, "lines")
		for i := range n {
			data = append(data, line(i)...)
		}
		write := func(b []byte) {
			if err := os.WriteFile(file, b, 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		write(data)
		reindex := func(force bool) {
			if _, _, _, err := a.IndexFile(ctx, file, force); err != nil {
				rt.Fatal(err)
			}
		}
		reindex(true)
		check := func(when string) {
			if got, want := storedBytes(t, a, file), committed(data); !bytes.Equal(got, want) {
				rt.Fatalf("%s: the index holds %d bytes, the file's committed bytes are %d", when, len(got), len(want))
			}
			// The pieces follow one another from byte 0, each ends at a
			// line end, and what follows a piece's first line is under
			// twice BytesPiece: a piece is cut at its last line end once
			// it passes BytesPiece, read BytesPiece bytes at a time, so
			// only a long first line makes it longer.
			var pieces []struct {
				Off  int64  `db:"offset"`
				Data []byte `db:"data"`
			}
			if err := raw.Select(&pieces, `SELECT "offset", data FROM file_bytes WHERE path = $1 ORDER BY "offset"`, file); err != nil {
				rt.Fatal(err)
			}
			at := int64(0)
			for _, p := range pieces {
				after := len(p.Data) - bytes.IndexByte(p.Data, '\n') - 1 // bytes after its first line
				if p.Off != at || len(p.Data) == 0 || p.Data[len(p.Data)-1] != '\n' || after >= 2*index.BytesPiece {
					rt.Fatalf("%s: piece at %d (%d bytes, %d after its first line) after %d stored bytes", when, p.Off, len(p.Data), after, at)
				}
				at += int64(len(p.Data))
			}
		}
		check("written whole")
		for k := range rapid.IntRange(0, 4).Draw(rt, "appends") {
			l := line(n + k)
			if rapid.Bool().Draw(rt, "torn") { // half a line first: not committed, not stored
				cut := rapid.IntRange(1, len(l)-1).Draw(rt, "cut")
				data = append(data, l[:cut]...)
				write(data)
				reindex(false)
				check("with a torn tail")
				data = append(data, l[cut:]...)
			} else {
				data = append(data, l...)
			}
			write(data)
			reindex(false)
			check("appended to")
		}
		if rapid.Bool().Draw(rt, "rewrite") { // the same size, one byte changed: stored again
			i := bytes.IndexByte(data, 'x')
			if i >= 0 {
				data[i] = 'y'
				write(data)
				reindex(true)
				check("rewritten")
			}
		}
	})
}

// The stored bytes answer in place of the file: with the file gone, path
// and messages are the same; a piece missing from the index is a
// stale_index error naming the file and offset, not a short answer.
func TestStoredBytes_AnswerWithoutTheFile(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	a := mustOpenArchive(t, url)
	_, file := copyV3(t)
	if _, _, _, err := a.IndexFile(ctx, file, false); err != nil {
		t.Fatal(err)
	}
	_, before, err := a.Messages(ctx, file, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	_, after, err := a.Messages(ctx, file, "")
	if err != nil {
		t.Fatalf("messages with the file gone: %v", err)
	}
	if fmt.Sprint(before) != fmt.Sprint(after) || len(after) == 0 {
		t.Fatalf("messages changed when the file went: %d then %d", len(before), len(after))
	}
	// Take the stored bytes away behind grove's back.
	raw := pgtest.Open(t, url)
	if _, err := raw.Exec("DELETE FROM file_bytes"); err != nil {
		t.Fatal(err)
	}
	_, _, err = a.Messages(ctx, file, "")
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.CodeStaleIndex || e.Path != file {
		t.Fatalf("messages without stored bytes: %v; want stale_index naming %s", err, file)
	}
}

// A hit whose session file is gone is marked stale, not read, and the
// search goes on: in SQLite from the file, which is gone; in PostgreSQL
// from the stored bytes, which are not.
func TestSearch_HitOfAGoneFile(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		a := mustOpenArchive(t, db)
		dir, file := copyV3(t)
		if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		res, err := a.Search(ctx, archive.SearchOptions{Query: "JWT"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Fatal("no hit for JWT")
		}
		for _, h := range res.Hits {
			if h.Stale == !a.IsServer() && (h.Snippet == "") == !a.IsServer() {
				continue
			}
			t.Fatalf("hit %s: stale %t, snippet %q (server %t)", h.EntryID, h.Stale, h.Snippet, a.IsServer())
		}
	})
}

// copyV3 copies testdata's pi v3 session into a new directory and returns
// both.
func copyV3(t *testing.T) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "pi", "v3-tree.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "v3.jsonl")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}
