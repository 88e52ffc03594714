package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// ForkOptions say where Fork writes.
type ForkOptions struct {
	// Out is the new session file. A directory gets a file named as pi
	// names its session files, <ISO time, - for : and .>_<id>.jsonl. ""
	// writes nothing: the lines are returned in Fork.Lines.
	Out string
	// DryRun makes every check a write would (the session, the leaf, the
	// dialect, the target: see CheckExportTarget) and writes nothing.
	DryRun bool
	// Now is the fork's time (its header's timestamp and file name); zero
	// means time.Now().
	Now time.Time
}

// Fork is what Fork made: a new pi version 3 session of the path to a
// leaf (SPEC §8 `export --format jsonl`).
type Fork struct {
	ID         string   // the new session's id (a UUIDv7)
	Source     string   // the source session's id
	Leaf       string   // the leaf forked at
	Entries    int      // entries of the path copied
	LabelFixes int      // label entries appended to match the source's labels (see ForkLines)
	Out        string   // the file written; "" when ForkOptions.Out was ""
	Lines      [][]byte // when Out is "": the file's lines without LFs, the header first, each checked as the writer checks an append (SPEC §5)
}

// Fork makes a new pi session of the path to leaf (the active leaf when
// "") of session, as pi's createBranchedSession does (see ForkLines), and
// writes it to opts.Out with WriteFork. Errors: those of ExportPath;
// wrong_dialect for a Claude Code or Codex session (grove never writes
// their files) or any other non-pi session; would_replace_session and
// would_replace_index for a target that is a session or grove's index,
// file_exists for one that is there; ctx's error when it ends before
// anything is written; those of WriteFork.
func (a *Archive) Fork(ctx context.Context, session, leaf string, opts ForkOptions) (*Fork, error) {
	p, path, labels, err := a.ExportPath(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	// Refused before any target is looked at: a pi fork of another agent's
	// session would be neither agent's file (SPEC §8).
	if agent := AgentOf(jsonl.Dialect(p.Session.Dialect)); agent != "" {
		return nil, errs.New(errs.CodeWrongDialect, "cannot export as jsonl a "+p.Session.Dialect+" session: grove never writes "+agent+"'s files").
			In(p.Session.Path).WithHint("grove never writes " + agent + "'s files; export --format md|html instead")
	}
	if opts.DryRun {
		if opts.Out != "" {
			return nil, a.CheckExportTarget(ctx, p.Session, opts.Out)
		}
		return nil, nil
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	lines, err := ForkLines(p.Session, path, labels, id.String(), now)
	if err != nil {
		return nil, err
	}
	f := &Fork{ID: id.String(), Source: p.Session.SessionID, Leaf: p.Leaf, Entries: len(path), LabelFixes: len(lines) - 1 - len(path)}
	if opts.Out == "" {
		// Each line goes through what the writer would check (SPEC §5), so
		// the lines equal what a file would hold.
		for i, l := range lines {
			b, err := jsonl.MarshalEntry(json.RawMessage(l))
			if err != nil {
				return nil, fmt.Errorf("fork line %d: %w", i+1, err)
			}
			lines[i] = b
		}
		f.Lines = lines
		return f, nil
	}
	out := opts.Out
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		// pi names session files <ISO time, - for : and .>_<id>.jsonl.
		stamp := strings.NewReplacer(":", "-", ".", "-").Replace(now.UTC().Format("2006-01-02T15:04:05.000Z"))
		out = filepath.Join(out, stamp+"_"+id.String()+".jsonl")
	}
	if err := a.CheckExportTarget(ctx, p.Session, out); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // Ctrl-C while the fork was being made: write nothing
	}
	if err := WriteFork(out, lines); err != nil {
		return nil, err
	}
	f.Out = out
	return f, nil
}

// AgentOf names the agent whose files a dialect grove never writes are
// (SPEC §5, §8): "Claude Code", "Codex"; "" for the dialects grove writes.
func AgentOf(d jsonl.Dialect) string {
	switch d {
	case jsonl.Claude:
		return "Claude Code"
	case jsonl.Codex:
		return "Codex"
	}
	return ""
}
