package archive_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// A session argument that names no session, or several, is an *errs.Error
// like every other error (SPEC §3.3, §8): its code, the argument as given
// in Session, and for several the candidates, each by id and file.
func TestResolve_SessionErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	line := `{"id":"r","parentId":null,"role":"user","content":"hi"}` + "\n"
	one := testutil.MustWriteFile(t, dir, "abcd-one.jsonl", []byte(line))
	two := testutil.MustWriteFile(t, dir, "abcd-two.jsonl", []byte(line))
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}

	_, err := a.Resolve(ctx, "nope")
	je, ok := errs.As(err)
	if !ok || je.Code != errs.CodeUnknownSession || je.Session != "nope" || je.Path != "" || len(je.Candidates) != 0 {
		t.Errorf("Resolve(nope) = %#v, want an unknown_session *errs.Error about nope", err)
	}
	if want := `no indexed session is named "nope" (give an id, a unique id prefix of 4+ characters, or a file path; run ` + "`grove index`" + ` if it is new) [unknown_session]`; err.Error() != want {
		t.Errorf("Resolve(nope) = %q, want %q", err, want)
	}

	_, err = a.Resolve(ctx, "abcd")
	je, ok = errs.As(err)
	if !ok || je.Code != errs.CodeAmbiguousSession || je.Session != "abcd" {
		t.Fatalf("Resolve(abcd) = %#v, want an ambiguous_session *errs.Error about abcd", err)
	}
	var got []string
	for _, c := range je.Candidates {
		got = append(got, c.ID+" "+c.Path)
	}
	if g, want := strings.Join(got, ", "), "abcd-one "+one+", abcd-two "+two; g != want {
		t.Errorf("Resolve(abcd) candidates = %s, want %s", g, want)
	}
	if !strings.HasPrefix(je.Message, `"abcd" names 2 sessions: `) {
		t.Errorf("Resolve(abcd) message = %q", je.Message)
	}
}
