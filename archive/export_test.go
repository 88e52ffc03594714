package archive_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// A fork of the path to any leaf of any pi session is a version 3 session
// whose active path is that path, entry for entry, and whose context, as a
// model receives it, is the source's (SPEC §4.1): migrating version 1 and
// 2 entries loses nothing a model sees.
func TestWriteFork_ContextSurvives(t *testing.T) {
	for name, dir := range map[string]func(*testing.T) string{
		"pi": func(t *testing.T) string { return testutil.Testdata(t, "pi") },
		// What pi writes and a writer would refuse as new input (SPEC §5):
		// integers beyond 2^53, escaped lone surrogates, compactions without
		// firstKeptEntryId, v1 hookMessage.
		"pi-edge":   func(t *testing.T) string { return testutil.Testdata(t, "pi-edge") },
		"corpus":    func(t *testing.T) string { return testutil.MustShared(t, "corpus/pi") }, // skips when absent
		"generated": func(t *testing.T) string { return mustGenerated(t) },
	} {
		t.Run(name, func(t *testing.T) { checkForks(t, dir(t)) })
	}
}

// checkForks forks every whole pi path under dir and checks the fork.
func checkForks(t *testing.T, dir string) {
	ctx := context.Background()
	a, leaves := mustIndexLeaves(t, dir)
	out := t.TempDir()
	forked := 0
	for i, l := range leaves {
		if l.Session.Dialect != "pi" || l.Leaf.Depth == nil {
			continue // a plain session is no pi session; a broken path has no fork
		}
		forked++
		p, path, labels, err := a.ExportPath(ctx, l.Session.Path, l.Leaf.EntryID)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := archive.ForkLines(p.Session, path, labels, "fork-id", time.Unix(1800000000, 0))
		if err != nil {
			t.Fatal(err)
		}
		fork := filepath.Join(out, strings.Repeat("f", i+1)+".jsonl")
		if err := archive.WriteFork(fork, lines); err != nil {
			t.Fatalf("WriteFork(%s at %s): %v", filepath.Base(l.Session.Path), l.Leaf.EntryID, err)
		}
		s, err := archive.Load(fork)
		if err != nil {
			t.Fatal(err)
		}
		if s.Header == nil || s.Header.Version != 3 || s.Header.ParentSession != l.Session.Path || s.Header.ID != "fork-id" ||
			s.Workspace != l.Session.Workspace || s.Result.State() != jsonl.StateOK {
			t.Fatalf("fork of %s: header %+v, workspace %q, state %s", l.Session.Path, s.Header, s.Workspace, s.Result.State())
		}
		if len(s.Entries) < len(path) {
			t.Fatalf("fork of %s at %s holds %d entries, want the path's %d and label fixes", filepath.Base(l.Session.Path), l.Leaf.EntryID, len(s.Entries), len(path))
		}
		if got, want := ids(s.Entries[:len(path)]), ids(path); got != want {
			t.Fatalf("fork of %s at %s holds %s, want the path %s", filepath.Base(l.Session.Path), l.Leaf.EntryID, got, want)
		}
		for _, e := range s.Entries[len(path):] {
			if e.Type != "label" {
				t.Fatalf("fork of %s at %s: entry %s after the path is a %s, want only label fixes", filepath.Base(l.Session.Path), l.Leaf.EntryID, e.ID, e.Type)
			}
		}
		// The fork labels the path's entries as the source does.
		for _, e := range path {
			if s.Labels[e.ID] != labels[e.ID] {
				t.Errorf("fork of %s at %s labels %s %q, the source %q", filepath.Base(l.Session.Path), l.Leaf.EntryID, e.ID, s.Labels[e.ID], labels[e.ID])
			}
		}
		got := pureContext(t, fork, "")
		want := pureContext(t, l.Session.Path, l.Leaf.EntryID)
		if g, w := contextJSON(got.ForLLM()), contextJSON(want.ForLLM()); g != w {
			t.Errorf("context of the fork of %s at %s =\n%s\nwant\n%s", filepath.Base(l.Session.Path), l.Leaf.EntryID, g, w)
		}
		if l.Session.Version == 3 {
			for k, e := range s.Entries[:len(path)] {
				if !bytes.Equal(e.Raw, path[k].Raw) {
					t.Errorf("fork line %d = %s, want the version 3 line copied unchanged: %s", k+2, e.Raw, path[k].Raw)
				}
			}
		}
		// pi's migration renames hookMessage for version 1 and 2 alike; a
		// version 3 reader would drop it from the context otherwise.
		for _, e := range s.Entries {
			if l.Session.Version < 3 && e.Role == "hookMessage" {
				t.Errorf("fork of version %d %s at %s: entry %s keeps role hookMessage, want custom", l.Session.Version, filepath.Base(l.Session.Path), l.Leaf.EntryID, e.ID)
			}
		}
	}
	if forked == 0 {
		t.Errorf("no pi leaf to fork under %s", dir)
	}
	t.Logf("%s: %d forks", filepath.Base(dir), forked)
}

// Version 1 entries get pi's migration: id and parentId appended, a
// compaction's firstKeptEntryIndex replaced by its firstKeptEntryId; the
// other members keep their bytes and order. hookMessage becomes custom.
func TestForkLines_Migrations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v1-linear.jsonl"), dir, "v1.jsonl")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v2-branches.jsonl"), dir, "v2.jsonl")
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	fork := func(session, leaf string) []string {
		p, path, labels, err := a.ExportPath(ctx, session, leaf)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := archive.ForkLines(p.Session, path, labels, "f", time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range lines {
			out = append(out, string(l))
		}
		return out
	}
	v1 := fork("9d3f", "L11")
	if want := `{"type":"session","version":3,"id":"f","timestamp":"1970-01-01T00:00:00.000Z","cwd":"/home/dev/projects/v1-demo","parentSession":"` + filepath.Join(dir, "v1.jsonl") + `"}`; v1[0] != want {
		t.Errorf("header = %s, want %s", v1[0], want)
	}
	if !strings.HasPrefix(v1[1], `{"type":"message","timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user"`) || !strings.HasSuffix(v1[1], `,"id":"L2","parentId":null}`) {
		t.Errorf("first v1 entry = %s, want its members, then id L2 and parentId null", v1[1])
	}
	comp := v1[8] // L9
	if !strings.HasSuffix(comp, `,"id":"L9","parentId":"L8","firstKeptEntryId":"L7"}`) || strings.Contains(comp, "firstKeptEntryIndex") {
		t.Errorf("v1 compaction = %s, want firstKeptEntryIndex replaced by firstKeptEntryId L7", comp)
	}
	v2 := fork("e4c1", "5f1b7d2e")
	hook := v2[8] // a0c3e5f7
	if !strings.Contains(hook, `"message":{"role":"custom","customType":"lint-on-save"`) || strings.Contains(hook, "hookMessage") {
		t.Errorf("v2 hookMessage entry = %s, want role custom in place", hook)
	}
	for i, l := range v2[1:] {
		if i != 7 && !strings.Contains(string(mustRead(t, filepath.Join(dir, "v2.jsonl"))), l) {
			t.Errorf("v2 fork line %d changed: %s", i+2, l)
		}
	}
}

// A fork never touches an existing file, and one that fails half-way is
// removed: no half session is left behind.
func TestWriteFork_ExistingAndFailed(t *testing.T) {
	dir := t.TempDir()
	header := []byte(`{"type":"session","version":3,"id":"f","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`)
	entry := func(id, parent string) []byte {
		return []byte(strings.TrimSuffix(piLine("message", id, parent, "2026-01-01T00:00:01.000Z", msg("user", `"x"`)), "\n"))
	}
	existing := testutil.MustWriteFile(t, dir, "existing.jsonl", []byte("precious\n"))
	err := archive.WriteFork(existing, [][]byte{header, entry("a", "")})
	var fe *errs.Error
	if !errors.As(err, &fe) || fe.Code != errs.CodeFileExists || fe.Path != existing {
		t.Errorf("WriteFork over an existing file: err = %v, want file_exists naming it", err)
	}
	if got := string(mustRead(t, existing)); got != "precious\n" {
		t.Errorf("existing file now holds %q", got)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	err = archive.WriteFork(bad, [][]byte{header, entry("a", ""), entry("b", "nope")})
	var je *errs.Error
	if !errors.As(err, &je) || je.Code != errs.CodeMissingParent || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("WriteFork with a missing parent: err = %v, want missing_parent naming line 3", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed fork is still there: %v", err)
	}
}
