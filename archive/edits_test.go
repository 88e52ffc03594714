package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// What ContextEdits says of each entry is what BuildContext does to it:
// for every leaf of testdata/pi-1.6, an entry is "removed" when the path
// without its context_edit entries gives it messages and the path with
// them gives none, "replaced" when both give some and they differ, and
// unlisted otherwise; the index's answer (Archive.ContextEdits) is the
// file's (PathEdits).
func TestContextEdits_AreWhatTheContextDoes(t *testing.T) {
	ctx := context.Background()
	a, leaves := mustIndexLeaves(t, testutil.Testdata(t, "pi-1.6"))
	marked := 0
	for _, l := range leaves {
		if l.Depth == nil {
			continue
		}
		name := fmt.Sprintf("%s at %s", filepath.Base(l.Session.Path), l.EntryID)
		s, err := archive.Load(l.Session.Path)
		if err != nil {
			t.Fatal(err)
		}
		path, err := archive.PathTo(s.Entries, l.EntryID)
		if err != nil {
			t.Fatal(err)
		}
		pure, perr := archive.PathEdits(s.Dialect, path, l.Session.Version)
		p, err := a.Path(ctx, l.Session.Path, l.EntryID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.ContextEdits(ctx, p)
		if (err != nil) != (perr != nil) || !reflect.DeepEqual(got, pure) && err == nil {
			t.Errorf("%s: ContextEdits by the index = %v, %v; by the file %v, %v", name, got, err, pure, perr)
		}
		edited, cerr := archive.BuildContext(path, l.Session.Version)
		if (cerr != nil) != (perr != nil) {
			t.Errorf("%s: BuildContext fails with %v, PathEdits with %v", name, cerr, perr)
		}
		if cerr != nil {
			continue
		}
		var plain []archive.FileEntry
		for _, e := range path {
			if e.Type != "context_edit" {
				plain = append(plain, e)
			}
		}
		unedited, err := archive.BuildContext(plain, l.Session.Version)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		before, after := byEntry(unedited), byEntry(edited)
		for id, msgs := range before {
			switch {
			case after[id] == "":
				want[id] = archive.EditRemoved
			case after[id] != msgs:
				want[id] = archive.EditReplaced
			}
		}
		if !reflect.DeepEqual(pure, want) {
			t.Errorf("%s: PathEdits = %v, want what BuildContext does: %v", name, pure, want)
		}
		marked += len(pure)
	}
	if marked < 10 {
		t.Errorf("%d entries marked over testdata/pi-1.6, want the fixtures' edits (10 or more)", marked)
	}
}

// byEntry is c's messages by the entry they came from, each entry's
// joined.
func byEntry(c *archive.Context) map[string]string {
	out := map[string]string{}
	for i, m := range c.Messages {
		out[c.KeptEntryIDs[i]] += string(m) + "\n"
	}
	return out
}

// A search hit says when a context edit on its session's active path
// replaced or removed its text (pi 1.x): not when the edit is on another
// branch, nor when the entry was summarised away, nor for another
// session's entry.
func TestSearch_MarksEditedHits(t *testing.T) {
	ctx := context.Background()
	a, _ := mustIndexLeaves(t, testutil.Testdata(t, "pi-1.6"))
	tests := []struct {
		query string
		want  map[string]string // hit id -> Edited, for every hit
	}{
		// u0001 replaced twice, t0002 replaced, x0001 removed, all on the
		// active path; a0010 is on another branch.
		{"hunter2", map[string]string{"ed0u0001": "replaced", "ed0t0002": "replaced", "ed0x0001": "removed"}},
		{"password", map[string]string{"ed0u0001": "replaced", "ed0a0010": ""}},
		// An edit written before its target; a null edit of an assistant
		// message.
		{"swordfish", map[string]string{"ed0u0003": "replaced", "ed0a0003": "removed"}},
		// Edits of a compaction's summarised entry (cp0u0001) and of the
		// kept range (cp0a0002); the compaction the active leaf's edit
		// removes.
		{"first question", map[string]string{"cp0u0001": ""}},
		{"second answer", map[string]string{"cp0a0002": "replaced"}},
		{"questions", map[string]string{"cp0c0002": "removed", "L7": ""}},
		// A version 2 file's hookMessage is pi's custom message; in
		// version 3 it is no role an edit changes.
		{"issues", map[string]string{"v2eh0001": "replaced"}},
		{"linter", map[string]string{"v2eu0001": "replaced"}},
		{"hook", map[string]string{"od0m0002": "", "od0m0001": "replaced"}},
	}
	for _, tt := range tests {
		res, err := a.Search(ctx, archive.SearchOptions{Query: tt.query, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, h := range res.Hits {
			got[h.EntryID] = h.Edited
		}
		for id, want := range tt.want {
			if g, ok := got[id]; !ok || g != want {
				t.Errorf("search %q: hit %s edited %q (found %v), want %q", tt.query, id, g, ok, want)
			}
		}
	}
}

// A transcript marks the entries a context edit at its leaf replaced or
// removed, and shows the edit itself; the path to another leaf marks
// none.
func TestTranscript_MarksContextEdits(t *testing.T) {
	ctx := context.Background()
	a, _ := mustIndexLeaves(t, testutil.Testdata(t, "pi-1.6"))
	md := func(leaf string) string {
		tr, err := a.Transcript(ctx, "16e0a001", leaf)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := tr.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := md("")
	for _, want := range []string{
		"`ed0u0001` · *edited* the model sees a context edit's content instead",
		"`ed0x0001` · *removed* a context edit took this out of what the model sees",
		"**Context edit**: the model sees new content for `ed0u0001`",
		"**Context edit**: `ed0x0001` taken out of what the model sees",
		"**Usage** `summary` by `claude-haiku-4-5` (anthropic): branch summary",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript at the active leaf lacks %q", want)
		}
	}
	if got := md("ed0u0011"); strings.Contains(got, "*edited*") || strings.Contains(got, "*removed*") {
		t.Errorf("transcript at ed0u0011, whose path has no edit, marks an entry edited")
	}
	// The pure side (ExportPath, NewTranscript) marks the same.
	p, path, labels, err := a.ExportPath(ctx, "16e0a001", "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := archive.NewTranscript(p, path, labels).Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != got {
		t.Errorf("NewTranscript's Markdown differs from Archive.Transcript's")
	}
}

// A fork of a version 1 file writes a context edit's targetId as null: pi
// gives a version 1 file's entries random ids, so its edits name none; in
// the fork, a version 3 file whose entries keep their grove ids (L<line>),
// the edit must name none either, or the fork's context would differ from
// its source's.
func TestFork_Version1EditNamesNoEntry(t *testing.T) {
	ctx := context.Background()
	a, _ := mustIndexLeaves(t, testutil.Testdata(t, "pi-1.6"))
	p, path, labels, err := a.ExportPath(ctx, "16e0a007", "")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := archive.ForkLines(p.Session, path, labels, "fork-v1", time.Unix(1800000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "fork.jsonl")
	if err := archive.WriteFork(f, lines); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mustRead(t, f)), `"type":"context_edit","timestamp":"2026-05-04T15:00:14.000Z","targetId":null,`) {
		t.Errorf("the fork's context edit does not have a null targetId:\n%s", mustRead(t, f))
	}
	src, fork := pureContext(t, testutil.Testdata(t, "pi-1.6/v1-edits.jsonl"), ""), pureContext(t, f, "")
	if g, w := contextJSON(fork), contextJSON(src); g != w {
		t.Errorf("the fork's context =\n%s\nwant its source's\n%s", g, w)
	}
}
