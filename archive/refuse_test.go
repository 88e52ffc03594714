package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// grove never writes another agent's files (SPEC §5, §8): append and
// repair refuse a Claude Code or Codex file before anything is read or
// written, naming what they would have done and what to do instead.
func TestWrites_RefuseAnotherAgentsFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	claude := testutil.MustCopy(t, filepath.Join("..", "testdata", "claude", "context-compact.jsonl"), dir, "c.jsonl")
	codex := testutil.MustCopy(t, filepath.Join("..", "testdata", "codex", "context-rebuild.jsonl"), dir, "rollout-2026-01-01T00-00-00-11111111-1111-4111-8111-111111111111.jsonl")
	before, _ := os.ReadFile(claude)

	in := strings.NewReader(`{"id":"x","parentId":null}` + "\n")
	out, err := archive.Append(ctx, claude, in, archive.AppendOptions{})
	je, _ := errs.As(err)
	if want := claude + ": cannot append to a claude session: grove never writes Claude Code's files [wrong_dialect]"; out != nil || err == nil || err.Error() != want || !strings.HasPrefix(je.Hint, "grove appends to pi, plain and messages files only") {
		t.Errorf("Append(claude file) = %v, %v; want %s, with a hint saying what grove appends to", out, err, want)
	}
	if in.Len() == 0 {
		t.Errorf("Append(claude file) read its input")
	}
	if after, _ := os.ReadFile(claude); !bytes.Equal(before, after) {
		t.Errorf("Append(claude file) changed the file")
	}

	plan, err := archive.Repair(ctx, codex, false)
	je, _ = errs.As(err)
	if want := codex + ": cannot repair a codex session: grove never writes Codex's files [wrong_dialect]"; plan != nil || err == nil || err.Error() != want || !strings.HasPrefix(je.Hint, "grove repairs pi, plain and messages files only") {
		t.Errorf("Repair(codex file) = %v, %v; want %s, with a hint saying what grove repairs", plan, err, want)
	}
}

// A compressed rollout (SPEC §3.5) holds zstd's bytes, no lines: recover
// and repair say so rather than reading it as lines.
func TestWrites_RefuseCompressed(t *testing.T) {
	ctx := context.Background()
	zst := testutil.MustWriteFile(t, t.TempDir(), "rollout-2026-01-01T00-00-00-11111111-1111-4111-8111-111111111111.jsonl.zst", []byte("(\xb5/\xfd not lines\n"))
	if _, err := archive.Recover(zst, false); errs.CodeOf(err) != errs.CodeUnsupportedCompression {
		t.Errorf("Recover(%s) = %v, want unsupported_compression", zst, err)
	}
	if _, err := archive.Repair(ctx, zst, true); errs.CodeOf(err) != errs.CodeUnsupportedCompression {
		t.Errorf("Repair(%s) = %v, want unsupported_compression", zst, err)
	}
}
