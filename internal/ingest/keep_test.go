package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/kept"
)

// mustKeptMatchesIndex checks every session of ix against its file and
// its kept copy: the kept copy holds at least the committed bytes the
// index knows, and they are the file's; with exact, exactly those.
func mustKeptMatchesIndex(t *testing.T, ix *ingest.Indexer, exact bool, what string) {
	t.Helper()
	rows, err := ix.DB().Sessions(context.Background(), index.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	st := ix.KeptStore()
	for _, s := range rows {
		file, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := st.OpenFile(s.Source, s.Path)
		if err != nil {
			t.Errorf("%s: %s is indexed but not kept: %v", what, s.Path, err)
			continue
		}
		got := make([]byte, f.Size())
		f.ReadAt(got, 0)
		f.Close()
		if int64(len(got)) < s.CommittedLen || !bytes.Equal(got[:s.CommittedLen], file[:s.CommittedLen]) {
			t.Errorf("%s: %s: kept %d bytes that are not the %d committed bytes indexed", what, s.Path, len(got), s.CommittedLen)
		}
		if exact && int64(len(got)) != s.CommittedLen {
			t.Errorf("%s: %s: kept %d bytes, want the %d committed", what, s.Path, len(got), s.CommittedLen)
		}
	}
}

// TestKeep_DiskFull: the disk fills while a file's committed bytes are
// kept, in the middle of a file larger than one block. The run is
// disk_full, and nothing is claimed that is not kept: every session the
// index holds has its committed bytes in the kept store, the file that
// did not fit is not indexed. With room again, the next run indexes every
// file and keeps each exactly once (SPEC §6, §11).
func TestKeep_DiskFull(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "sessions")
	if _, err := corpusgen.Generate(ctx, root, corpusgen.Options{Seed: 3, Size: 1 << 20, MaxSession: 200 << 10, BigSession: 800 << 10}); err != nil {
		t.Fatal(err)
	}
	var files []string
	var big string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
			if fi, _ := d.Info(); fi != nil && fi.Size() > 600<<10 && big == "" {
				big = p
			}
		}
		return err
	})
	if big == "" {
		t.Fatal("the generated corpus has no file larger than two blocks")
	}
	big, _ = filepath.EvalSymlinks(big)
	ix, err := ingest.OpenForWrite(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Keep(true)
	ingest.OnKeep(func(path string, at int64) error {
		if path == big && at > 0 {
			return faultErr(path, syscall.ENOSPC)
		}
		return nil
	})
	defer ingest.OnKeep(nil)
	sum, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
	if errs.CodeOf(err) != errs.CodeDiskFull || sum.Indexed >= len(files) {
		t.Fatalf("Index with the disk full while keeping: %+v, %v; want disk_full with files not indexed", sum, err)
	}
	if s, _ := ix.DB().SessionByPath(ctx, big); s != nil {
		t.Errorf("%s is indexed, but its bytes were not kept", big)
	}
	mustKeptMatchesIndex(t, ix, false, "after the full disk")

	ingest.OnKeep(nil)
	sum, err = ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
	if err != nil {
		t.Fatalf("Index with room again: %v", err)
	}
	if n, _ := ix.DB().CountSessions(ctx); n != len(files) {
		t.Errorf("%d sessions indexed, want %d", n, len(files))
	}
	mustKeptMatchesIndex(t, ix, true, "with room again")
	if _, err := kept.Open(kept.Dir(ix.File())).List(); err != nil {
		t.Error(err)
	}
}

// TestKeep_TurnedOnLater: files indexed with keeping off, then one grown
// by an append and indexed with keeping on: the grown file's kept copy is
// its whole committed bytes (what the store lacked before the append read
// again from the file), once.
func TestKeep_TurnedOnLater(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "sessions")
	if _, err := corpusgen.Generate(ctx, root, corpusgen.Options{Seed: 4, Size: 256 << 10, BigSession: 700 << 10}); err != nil {
		t.Fatal(err)
	}
	ix, err := ingest.OpenForWrite(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	rows, _ := ix.DB().Sessions(ctx, index.SessionFilter{})
	var grown string
	for _, s := range rows {
		if s.CommittedLen > 600<<10 {
			grown = s.Path
		}
	}
	f, err := os.OpenFile(grown, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"custom","customType":"keep-test","id":"keep-later","parentId":null,"timestamp":"2026-11-30T00:00:00.000Z","data":{}}` + "\n")
	f.Close()
	ix.Keep(true)
	sum, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}})
	if err != nil || sum.Appended != 1 {
		t.Fatalf("Index after the append: %+v, %v; want 1 file appended", sum, err)
	}
	s, _ := ix.DB().SessionByPath(ctx, grown)
	n, err := ix.KeptStore().Len(s.Source, s.Path)
	if err != nil || n != s.CommittedLen {
		t.Fatalf("kept %d bytes of %s, %v; want its %d committed", n, grown, err, s.CommittedLen)
	}
	kf, err := ix.KeptStore().OpenFile(s.Source, s.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer kf.Close()
	got := make([]byte, n)
	kf.ReadAt(got, 0)
	if want, _ := os.ReadFile(grown); !bytes.Equal(got, want[:n]) {
		t.Errorf("the kept copy of %s is not its committed bytes", grown)
	}
}

// TestKeep_RewriteBeyondFirstBlock: a file larger than two blocks is
// rewritten past its first block (its first lines kept, a new line after
// them, as pi's branch delete rewrites a file). The next Index keeps the
// old bytes as earlier version 1, indexed at kept.VersionPath(path, 1)
// and marked gone, and the new bytes as the current version (SPEC §11).
func TestKeep_RewriteBeyondFirstBlock(t *testing.T) {
	ctx := context.Background()
	root, dbPath, big, old := bigKeptSession(t)
	ix, err := ingest.OpenForWrite(ctx, dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Keep(true)
	lines := bytes.SplitAfter(old[:big.CommittedLen], []byte("\n"))
	var head []byte
	for _, l := range lines {
		if len(head) > 400<<10 {
			break
		}
		head = append(head, l...)
	}
	rewritten := append(head, `{"type":"custom","customType":"keep-test","id":"rewritten1","parentId":null,"timestamp":"2026-11-30T00:00:00.000Z","data":{}}`+"\n"...)
	if err := os.WriteFile(big.Path, rewritten, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatalf("Index after the rewrite: %v", err)
	}
	st := ix.KeptStore()
	read := func(f *kept.File, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, f.Size())
		f.ReadAt(b, 0)
		return b
	}
	if got := read(st.OpenVersion(big.Source, big.Path, 1)); !bytes.Equal(got, old[:big.CommittedLen]) {
		t.Errorf("earlier version 1: %d bytes, want the %d committed before the rewrite", len(got), big.CommittedLen)
	}
	if got := read(st.OpenFile(big.Source, big.Path)); !bytes.Equal(got, rewritten) {
		t.Errorf("current version: %d bytes, want the %d rewritten", len(got), len(rewritten))
	}
	v, err := ix.DB().SessionByPath(ctx, kept.VersionPath(big.Path, 1))
	if err != nil || v == nil || !v.Gone || v.SessionID != big.SessionID+"@v1" || v.CommittedLen != big.CommittedLen || v.Entries != big.Entries {
		t.Fatalf("the index holds %+v, %v at the earlier version's path; want the old session, gone, id %s@v1", v, err, big.SessionID)
	}
}

// A run stopped after the keeper made a rewritten file's kept copy its
// earlier version, but before the index committed (a Ctrl-C, a kill):
// the next run, which finds the file's bytes already kept, still indexes
// that earlier version (SPEC §11: a run stopped at any moment leaves an
// index the next one finishes).
func TestKeep_RewriteStoppedStillIndexesTheEarlierVersion(t *testing.T) {
	ctx := context.Background()
	root, dbPath, big, old := bigKeptSession(t)
	ix, err := ingest.OpenForWrite(ctx, dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix.Keep(true)
	// The rewrite differs from the kept bytes in its first block: its
	// header, then a new line, then the old lines.
	lines := bytes.SplitAfter(old[:big.CommittedLen], []byte("\n"))
	rewritten := append([]byte(nil), lines[0]...)
	rewritten = append(rewritten, `{"type":"custom","customType":"keep-test","id":"rewritten1","parentId":null,"timestamp":"2026-11-30T00:00:00.000Z","data":{}}`+"\n"...)
	rewritten = append(rewritten, bytes.Join(lines[1:], nil)...)
	if err := os.WriteFile(big.Path, rewritten, 0o600); err != nil {
		t.Fatal(err)
	}
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	ingest.OnKeep(func(path string, at int64) error {
		if path == big.Path && at > 0 { // the earlier version is made by now
			cancel()
			return stop.Err()
		}
		return nil
	})
	_, err = ix.Index(stop, ingest.IndexOptions{Roots: []string{root}})
	ingest.OnKeep(nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Index stopped while keeping the rewrite: %v, want context.Canceled", err)
	}
	if v := ix.KeptStore().Versions(big.Source, big.Path); v != 1 {
		t.Fatalf("the stopped run left %d earlier versions in the kept store; the test needs it to have made one", v)
	}
	// The next run is another process's.
	ix.Close()
	if ix, err = ingest.OpenForWrite(ctx, dbPath, nil); err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Keep(true)
	if _, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatalf("Index after the stopped run: %v", err)
	}
	v, err := ix.DB().SessionByPath(ctx, kept.VersionPath(big.Path, 1))
	if err != nil || v == nil || !v.Gone || v.SessionID != big.SessionID+"@v1" || v.CommittedLen != big.CommittedLen || v.Entries != big.Entries {
		t.Fatalf("after the next run the index holds %+v, %v at the earlier version's path; want the old session, gone, id %s@v1", v, err, big.SessionID)
	}
	cur, err := ix.DB().SessionByPath(ctx, big.Path)
	if err != nil || cur == nil || cur.CommittedLen != int64(len(rewritten)) {
		t.Fatalf("the current version: %+v, %v; want the %d bytes rewritten", cur, err, len(rewritten))
	}
}

// bigKeptSession indexes, keeping, a generated corpus with one session
// larger than two of the keeper's blocks, into an index it closes: the
// corpus's root, the index's path, that session's row and its bytes.
func bigKeptSession(t *testing.T) (root, dbPath string, big *index.Session, old []byte) {
	t.Helper()
	ctx := context.Background()
	root = filepath.Join(t.TempDir(), "sessions")
	if _, err := corpusgen.Generate(ctx, root, corpusgen.Options{Seed: 5, Size: 256 << 10, BigSession: 700 << 10}); err != nil {
		t.Fatal(err)
	}
	dbPath = filepath.Join(t.TempDir(), "index.db")
	ix, err := ingest.OpenForWrite(ctx, dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Keep(true)
	if _, err := ix.Index(ctx, ingest.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	rows, _ := ix.DB().Sessions(ctx, index.SessionFilter{})
	for i := range rows {
		if rows[i].CommittedLen > 600<<10 {
			big = &rows[i]
		}
	}
	if big == nil {
		t.Fatal("the generated corpus has no file larger than two blocks")
	}
	if old, err = os.ReadFile(big.Path); err != nil {
		t.Fatal(err)
	}
	return root, dbPath, big, old
}
