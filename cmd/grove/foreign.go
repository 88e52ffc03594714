package main

import (
	"context"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
)

// compressedError is the error of a command that would read the entries
// of a file grove lists but does not read (a *.jsonl.zst, SPEC §3.5).
func compressedError(path string) error {
	return errs.New(errs.CodeUnsupportedCompression, "compressed with zstd (.jsonl.zst), which grove does not read: the session has no entries to show").In(path).WithHint(archive.UnsupportedHint)
}

// refuseCompressed is compressedError when the session argument arg names
// (archive.Resolve) a compressed rollout's session, so that path, tree,
// messages, context and export say why there is nothing rather than that there is
// no active leaf; nil otherwise, and when arg names no session (the
// command says so in its own words).
func refuseCompressed(ctx context.Context, a *archive.Archive, arg string) error {
	if s, err := a.Resolve(ctx, arg); err == nil && s != nil && archive.IsCompressed(s.Path) {
		return compressedError(s.Path)
	}
	return nil
}

// refuseForeign is the wrong_dialect error of a command that would write
// (or make, for export --format jsonl) the file at path of another agent's
// dialect d (SPEC §5, §8: grove never writes a Claude Code or Codex file),
// with a hint saying what to do instead; nil for a dialect grove writes.
// doing is the refused operation: "append to", "repair", "export as jsonl".
func refuseForeign(path string, d archive.Dialect, doing, hint string) error {
	agent := archive.AgentOf(d)
	if agent == "" {
		return nil
	}
	return errs.New(errs.CodeWrongDialect, "cannot "+doing+" a "+string(d)+" session: grove never writes "+agent+"'s files").In(path).WithHint(hint)
}

// checkWritable refuses, before anything is written, a command that would
// write to the file at path when that file is another agent's (see
// refuseForeign), whether or not it was ever indexed, or a compressed
// rollout (unsupported_compression). A file that cannot be opened is left
// to the command.
func checkWritable(ctx context.Context, path, doing, hint string) error {
	if archive.IsCompressed(path) {
		return compressedError(path) // Codex's, and not lines at all
	}
	d, ok := archive.FileDialect(ctx, path)
	if !ok {
		return nil
	}
	return refuseForeign(path, d, doing, hint)
}
