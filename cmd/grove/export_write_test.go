package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// writeDocument streams an export into a temporary file beside --out and
// puts it in place only when the document is whole (SPEC §2.8): a Ctrl-C
// or a failure mid-document leaves no file and no temporary file; the
// file is 0600 whatever the umask allows; a file someone else made at
// --out while the document was made is kept and the export refused
// (file_exists), and with --force an ordinary file is replaced.
func TestWriteDocument_Streamed(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.html")
	leftovers := func(what string) {
		t.Helper()
		if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
			t.Errorf("%s: left %v", what, names)
		}
	}
	half := func(w io.Writer) error {
		_, err := io.WriteString(w, "<!DOCTYPE html>\n<p>half")
		return err
	}

	ctx, cancel := context.WithCancel(context.Background())
	err := writeDocument(ctx, out, false, func(w io.Writer) error {
		if err := half(w); err != nil {
			return err
		}
		cancel() // Ctrl-C mid-document
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Ctrl-C mid-document: err = %v, want context.Canceled", err)
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("Ctrl-C mid-document left %s (%v)", out, err)
	}
	leftovers("Ctrl-C")

	broken := errors.New("renderer failed")
	if err := writeDocument(context.Background(), out, false, func(w io.Writer) error {
		_ = half(w)
		return broken
	}); !errors.Is(err, broken) {
		t.Errorf("failed render: err = %v, want it", err)
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("failed render left %s", out)
	}
	leftovers("failed render")

	if err := writeDocument(context.Background(), out, false, half); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("written %s: %v, %v; want mode 0600", out, fi, err)
	}
	leftovers("written")

	other := filepath.Join(dir, "other.html")
	err = writeDocument(context.Background(), other, false, func(w io.Writer) error {
		testutil.MustWriteFile(t, dir, "other.html", []byte("theirs\n")) // made meanwhile
		return half(w)
	})
	var je *errs.Error
	if !errors.As(err, &je) || je.Code != errs.CodeFileExists {
		t.Errorf("--out made meanwhile: err = %v, want file_exists", err)
	}
	if b, _ := os.ReadFile(other); string(b) != "theirs\n" {
		t.Errorf("--out made meanwhile now holds %q, want it kept", b)
	}
	leftovers("made meanwhile")

	if err := writeDocument(context.Background(), other, true, half); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Errorf("--force: %s holds %q, want the page", other, b)
	}
	leftovers("--force")
}
