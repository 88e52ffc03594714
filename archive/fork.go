package archive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// ForkOptions say where Fork writes.
type ForkOptions struct {
	// Out is the new session file. A directory gets a file named as pi
	// names its session files, <ISO time, - for : and .>_<id>.jsonl. ""
	// writes the lines to To instead.
	Out string
	// To takes the fork's lines, each with its LF, when Out is "" (nil:
	// the lines are made and checked, and dropped).
	To io.Writer
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
	ID         string // the new session's id (a UUIDv7)
	Source     string // the source session's id
	Leaf       string // the leaf forked at
	Entries    int    // entries of the path copied
	LabelFixes int    // label entries appended to match the source's labels (see ForkLines)
	Out        string // the file written; "" when ForkOptions.Out was ""
	reused     bool   // Out is an earlier fork of the same path (Resume)
}

// Fork makes a new pi session of the path to leaf (the active leaf when
// "") of session, as pi's createBranchedSession does (see ForkLines), and
// writes it to opts.Out as WriteFork does, or, when opts.Out is "", to
// opts.To: each line, checked as the writer checks an append (SPEC §5),
// then a line feed. The lines are read back from the session file by
// offset, checked against their CRC-32 and made into the fork's lines
// once before anything is written (so a stale or unmigratable line is an
// error that writes nothing), then read again and written one at a time:
// a large session is never held whole (SPEC §2.8).
//
// Errors: those of ExportPath; wrong_dialect for a Claude Code or Codex
// session (grove never writes their files) or any other non-pi session;
// would_replace_session and would_replace_index for a target that is a
// session or grove's index, file_exists for one that is there; ctx's
// error when it ends before anything is written, or while the lines are
// written (a file is then removed; To holds part of the fork); those of
// WriteFork; To's write errors.
func (a *Archive) Fork(ctx context.Context, session, leaf string, opts ForkOptions) (*Fork, error) {
	p, labels, err := a.checkedPath(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	// Refused before any target is looked at: a pi fork of another agent's
	// session would be neither agent's file (SPEC §8).
	if name := AgentOf(p.Session.Dialect); name != "" {
		return nil, foreignError(p.Session.Path, p.Session.Dialect, "export as jsonl", "grove never writes "+name+"'s files; export --format md|html instead, or grove resume to go on from that leaf in "+name)
	}
	if opts.DryRun {
		if opts.Out != "" {
			return nil, a.CheckExportTarget(ctx, p.Session, opts.Out)
		}
		return nil, nil
	}
	forker, err := forkerOf(p.Session)
	if err != nil {
		return nil, err // wrong_dialect, as ForkLines says it
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	src, err := p.Session.open()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	fl, err := newForkLines(ctx, p, src, forker, labels, id.String(), now)
	if err != nil {
		return nil, err
	}
	// Every line made once before anything is written: bad_line first
	// (ForkLines'), then, for To, the first line the writer would refuse.
	if err := fl.check(opts.Out == ""); err != nil {
		return nil, err
	}
	f := &Fork{ID: id.String(), Source: p.Session.SessionID, Leaf: p.Leaf, Entries: len(fl.path), LabelFixes: len(fl.fixes)}
	if opts.Out == "" {
		if err := ctx.Err(); err != nil {
			return nil, err // Ctrl-C while the fork was being made: write nothing
		}
		to := opts.To
		if to == nil {
			to = io.Discard // nothing asked for: the checks alone
		}
		if err := fl.writeTo(to); err != nil {
			return nil, err
		}
		return f, nil
	}
	out := opts.Out
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		out = filepath.Join(out, forkFileName(now, id.String()))
	}
	if err := a.CheckExportTarget(ctx, p.Session, out); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // Ctrl-C while the fork was being made: write nothing
	}
	if err := writeFork(out, fl.each); err != nil {
		return nil, err
	}
	f.Out = out
	return f, nil
}

// forkFileName is the name pi gives a session file it makes at now with
// id: <ISO time, with - for : and .>_<id>.jsonl.
func forkFileName(now time.Time, id string) string {
	stamp := strings.NewReplacer(":", "-", ".", "-").Replace(now.UTC().Format("2006-01-02T15:04:05.000Z"))
	return stamp + "_" + id + ".jsonl"
}

// forkLines are the lines of a fork of path p, made from its source file
// src by the agent's forker: the header, every entry's line (read back by
// offset), then the label fixes.
type forkLines struct {
	ctx    context.Context
	p      *Path
	src    SessionFile
	forker agent.Forker
	fs     agent.ForkSource
	path   []FileEntry // the path without its lines, but for its label entries'
	fixes  [][]byte
	header []byte
	buf    []byte // the last entry line read, reused for the next
}

func newForkLines(ctx context.Context, p *Path, src SessionFile, forker agent.Forker, labels map[string]string, id string, now time.Time) (*forkLines, error) {
	fl := &forkLines{ctx: ctx, p: p, src: src, forker: forker, fs: forkSource(p.Session), path: make([]FileEntry, len(p.Entries))}
	for i, e := range p.Entries {
		fl.path[i] = jsonlEntry(e)
		if e.Type == "label" { // ForkLabels reads them
			raw, err := ReadLine(src, p.Session.Path, e)
			if err != nil {
				return nil, err
			}
			fl.path[i].Raw = raw
		}
	}
	fl.fixes = forker.ForkLabels(fl.path, labels, now)
	fl.header = forker.ForkHeader(fl.fs, id, now)
	return fl, nil
}

// each gives every line of the fork in order, numbered from 1 (the
// header). The entry lines are read into one buffer, reused: every use of
// a line (the checks, a write, CopyAsync's copy) is done with it before
// the next is read.
func (fl *forkLines) each(yield func(n int, line []byte) error) error {
	if err := yield(1, fl.header); err != nil {
		return err
	}
	for i, e := range fl.p.Entries {
		if err := fl.ctx.Err(); err != nil {
			return err
		}
		raw := fl.path[i].Raw
		if raw == nil {
			var err error
			if raw, err = readLineInto(fl.src, fl.p.Session.Path, e, fl.buf); err != nil {
				return err
			}
			fl.buf = raw
		}
		line, err := fl.forker.ForkLine(fl.fs, fl.path, i, raw)
		if err != nil {
			return err
		}
		if err := yield(i+2, line); err != nil {
			return err
		}
	}
	for i, l := range fl.fixes {
		if err := yield(len(fl.path)+2+i, l); err != nil {
			return err
		}
	}
	return nil
}

// check makes every line once: a line the agent's forker refuses fails
// (bad_line); with marshal, so does the first line the writer would
// refuse as new input (MarshalEntry), after every line was made.
func (fl *forkLines) check(marshal bool) error {
	var marshalErr error
	if err := fl.each(func(n int, line []byte) error {
		if marshal && marshalErr == nil {
			if _, err := jsonl.MarshalEntry(json.RawMessage(line)); err != nil {
				marshalErr = fmt.Errorf("fork line %d: %w", n, err)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return marshalErr
}

// writeTo writes the fork's lines to w, each compacted as the writer
// stores it (every line passed MarshalEntry in check, whose answer for a
// line it takes is the line compacted: the check is not paid twice).
func (fl *forkLines) writeTo(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var compact bytes.Buffer
	err := fl.each(func(n int, line []byte) error {
		if !jsonl.IsCompact(line) {
			compact.Reset()
			if err := json.Compact(&compact, line); err != nil {
				return fmt.Errorf("fork line %d: %w", n, err)
			}
			line = compact.Bytes()
		}
		bw.Write(line)
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	return err
}

// AgentOf names the agent whose files a dialect grove never writes are
// (SPEC §5, §8): its agent's Name ("Claude Code", "Codex") when its files
// are not Writable; "" for the dialects grove writes.
func AgentOf(d jsonl.Dialect) string {
	if a := agent.Of(d); !a.Writable() {
		return a.Name()
	}
	return ""
}
