package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// Archive.Transcript reads each line as its block is made; the document is
// byte for byte the one rendered from the lines held whole (NewTranscript
// of ExportPath), in both formats, for every leaf of every dialect's
// sessions (a Codex path reads its turn_context lines ahead: hiddenCodex).
func TestTranscript_StreamedEqualsHeld(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{"pi", "pi-edge", "pi-1.6", "plain", "messages", "claude", "codex", "quirks"} {
		t.Run(dir, func(t *testing.T) {
			a, leaves := mustIndexLeaves(t, testutil.Testdata(t, dir))
			rendered := 0
			for _, l := range leaves {
				if l.Depth == nil {
					continue // a broken path has no transcript
				}
				for _, format := range []string{"md", "html"} {
					render := func(tr *archive.Transcript) string {
						var b bytes.Buffer
						var err error
						if format == "md" {
							err = tr.Markdown(&b)
						} else {
							err = tr.HTML(&b)
						}
						if err != nil {
							t.Fatalf("%s of %s at %s: %v", format, l.Session.Path, l.EntryID, err)
						}
						return b.String()
					}
					streamed, err := a.Transcript(ctx, l.Session.Path, l.EntryID)
					if err != nil {
						t.Fatal(err)
					}
					p, path, labels, err := a.ExportPath(ctx, l.Session.Path, l.EntryID)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := render(streamed), render(archive.NewTranscript(p, path, labels)); got != want {
						t.Fatalf("%s of %s at %s streamed differs from the one held whole:\n%s\nwant\n%s", format, filepath.Base(l.Session.Path), l.EntryID, got, want)
					}
					rendered++
				}
			}
			if rendered == 0 {
				t.Fatalf("no path rendered under %s", dir)
			}
		})
	}
}

// A line changed after Transcript checked it is stale_index from the
// renderer, and a cancelled context stops it with the context's error.
func TestTranscript_StaleAndCancelled(t *testing.T) {
	dir := t.TempDir()
	file := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, "s.jsonl")
	a, _ := mustIndexLeaves(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr, err := a.Transcript(ctx, file, "")
	if err != nil {
		t.Fatal(err)
	}
	// The same size and mtime, one byte different: the CRC-32 tells.
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	write := func() {
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	i := bytes.LastIndex(b, []byte(`"type"`))
	b[i+1] = 'T'
	write()
	if err := tr.Markdown(&bytes.Buffer{}); errs.CodeOf(err) != errs.CodeStaleIndex {
		t.Errorf("Markdown after the line changed = %v, want stale_index", err)
	}
	if _, err := a.Transcript(ctx, file, ""); errs.CodeOf(err) != errs.CodeStaleIndex {
		t.Fatalf("Transcript of a changed line = %v, want stale_index before any block", err)
	}
	b[i+1] = 't'
	write()
	if tr, err = a.Transcript(ctx, file, ""); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := tr.HTML(&bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("HTML after cancel = %v, want context.Canceled", err)
	}
}

// Fork streams its lines to ForkOptions.To; they are ForkLines' lines
// (with the fork's id), each through the writer's check, for every whole
// pi path. A session of another dialect writes nothing.
func TestFork_StreamedEqualsForkLines(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1800000000, 0)
	for _, dir := range []string{"pi", "pi-edge", "pi-1.6", "plain"} {
		a, leaves := mustIndexLeaves(t, testutil.Testdata(t, dir))
		forked := 0
		for _, l := range leaves {
			if l.Depth == nil {
				continue
			}
			var got bytes.Buffer
			f, err := a.Fork(ctx, l.Session.Path, l.EntryID, archive.ForkOptions{To: &got, Now: now})
			if l.Session.Dialect != "pi" {
				if errs.CodeOf(err) != errs.CodeWrongDialect || got.Len() > 0 {
					t.Errorf("Fork of %s session %s = %v, wrote %d bytes; want wrong_dialect and nothing", l.Session.Dialect, l.Session.Path, err, got.Len())
				}
				continue
			}
			id := "fork-id"
			if f != nil {
				id = f.ID
			}
			p, path, labels, perr := a.ExportPath(ctx, l.Session.Path, l.EntryID)
			if perr != nil {
				t.Fatal(perr)
			}
			lines, wantErr := archive.ForkLines(p.Session, path, labels, id, now)
			var want bytes.Buffer
			for i, line := range lines {
				b, merr := jsonl.MarshalEntry(json.RawMessage(line))
				if merr != nil {
					wantErr = fmt.Errorf("fork line %d: %w", i+1, merr)
					break
				}
				want.Write(b)
				want.WriteByte('\n')
			}
			if err != nil || wantErr != nil {
				// What the writer refuses (a lone surrogate) is refused
				// before anything is written, as before.
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || got.Len() > 0 {
					t.Errorf("Fork(%s at %s) = %v, wrote %d bytes; want %v and nothing", l.Session.Path, l.EntryID, err, got.Len(), wantErr)
				}
				continue
			}
			// Label fixes have fresh random ids: compare all but those.
			g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
			if len(g) != len(w) || strings.Join(g[:len(g)-1-f.LabelFixes], "\n") != strings.Join(w[:len(w)-1-f.LabelFixes], "\n") {
				t.Fatalf("Fork of %s at %s streamed\n%s\nwant\n%s", filepath.Base(l.Session.Path), l.EntryID, got.String(), want.String())
			}
			forked++
		}
		if dir != "plain" && forked == 0 {
			t.Errorf("no pi path forked under %s", dir)
		}
	}
}
