package archive

import (
	"context"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/ingest"
)

// compressedError is the unsupported_compression error of a command that
// would read or write the entries of a file grove lists but does not read
// (a *.jsonl.zst, SPEC §3.5).
func compressedError(path string) *errs.Error {
	return errs.New(errs.CodeUnsupportedCompression, "compressed with zstd (.jsonl.zst), which grove does not read: the session has no entries to show").In(path).WithHint(ingest.UnsupportedHint)
}

// RefuseCompressed is the unsupported_compression error naming the file
// when arg names (Resolve) a compressed rollout's session (SPEC §3.5), so
// that a command reading its entries says why there are none rather than
// that there is no active leaf; nil otherwise, and when arg names no
// session (the command then says so in its own words).
func (a *Archive) RefuseCompressed(ctx context.Context, arg string) error {
	if s, err := a.Resolve(ctx, arg); err == nil && s != nil && IsCompressed(s.Path) {
		return compressedError(s.Path)
	}
	return nil
}

// foreignError is the wrong_dialect error of a command that would write
// (or make) the file at path of another agent's dialect d: grove never
// writes a Claude Code or Codex file (SPEC §5, §8). doing is the refused
// operation ("append to", "repair", "export as jsonl"), hint what to do
// instead. It is nil for a dialect grove writes.
func foreignError(path string, d Dialect, doing, hint string) *errs.Error {
	agent := AgentOf(d)
	if agent == "" {
		return nil
	}
	return errs.New(errs.CodeWrongDialect, "cannot "+doing+" a "+string(d)+" session: grove never writes "+agent+"'s files").In(path).WithHint(hint)
}

// checkWritable refuses, before anything is written, to do to the file at
// path what doing says when that file is another agent's (foreignError,
// with hint), whether or not it was ever indexed, or a compressed rollout
// (unsupported_compression). A file that cannot be opened is left to the
// caller.
func checkWritable(ctx context.Context, path, doing, hint string) error {
	if IsCompressed(path) {
		return compressedError(path) // Codex's, and not lines at all
	}
	d, ok := FileDialect(ctx, path)
	if !ok {
		return nil
	}
	if err := foreignError(path, d, doing, hint); err != nil {
		return err
	}
	return nil
}
