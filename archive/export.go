package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// ExportPath answers the first half of `grove export`: the path to leaf
// (the active leaf when ""), by CTE, with every entry's committed line read
// back by offset and checked against its CRC-32, and the session's labels
// by target id. Errors: those of Path, and stale_index.
func (a *Archive) ExportPath(ctx context.Context, session, leaf string) (*Path, []FileEntry, map[string]string, error) {
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, nil, nil, err
	}
	path, err := readPath(p, func(Entry) bool { return true })
	if err != nil {
		return nil, nil, nil, err
	}
	labels, err := a.db().Labels(ctx, p.Session.row.SID)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, path, labels, nil
}

// ForkLines is a new pi version 3 session holding path (root first, with
// Raw): the lines of its file, without their LFs. The header is
// {"type":"session","version":3,"id":id,"timestamp":now,"cwd":workspace,
// "parentSession":src.Path}, in the key order pi writes.
//
// Entries of a version 3 file are copied byte for byte. Older entries are
// migrated as pi migrates a file it opens, since a version 3 reader would
// misread them otherwise: a version 1 entry gets "id" and "parentId" (its
// grove id L<line> and its parent's, SPEC §3.2) and a compaction's
// firstKeptEntryIndex becomes firstKeptEntryId (none when it names no
// entry); a version 1 or 2 message of role "hookMessage" gets role
// "custom" (SPEC §5). Every other member keeps its bytes and its place, so
// integers beyond 2^53 and escaped lone surrogates stay as they are.
//
// Labels: the label entries on the path alone may not give the labels the
// source gives its path's entries (one set or cleared on another branch),
// so where they differ from labels (the source's, by target id) a label
// entry is appended after the path, as pi's createBranchedSession writes
// the labels of a fork after it; such entries get fresh 8-hex ids. The
// fork's active leaf is then the last of them, with the same context.
//
// Errors: wrong_dialect for a session of another dialect (it is no pi
// session; Claude Code's and Codex's are never written),
// bad_line for a line that is not a JSON object.
func ForkLines(src *Session, path []FileEntry, labels map[string]string, id string, now time.Time) ([][]byte, error) {
	f, err := forkerOf(src)
	if err != nil {
		return nil, err
	}
	fs := forkSource(src)
	lines := [][]byte{f.ForkHeader(fs, id, now)}
	for i := range path {
		line, err := f.ForkLine(fs, path, i, path[i].Raw)
		if err != nil {
			return nil, err
		}
		lines = append(lines, line)
	}
	return append(lines, f.ForkLabels(path, labels, now)...), nil
}

// forkSource is what a fork's lines say of the session src.
func forkSource(src *Session) agent.ForkSource {
	return agent.ForkSource{Path: src.Path, Workspace: src.Workspace, Version: src.Version}
}

// forkerOf is the agent of src that forks (agent.Forker: pi), or
// wrong_dialect for a session of any other dialect.
func forkerOf(src *Session) (agent.Forker, error) {
	if f, ok := agent.Of(src.Dialect).(agent.Forker); ok {
		return f, nil
	}
	return nil, errs.New(errs.CodeWrongDialect, "a "+string(src.Dialect)+" session cannot be exported as a pi session file").In(src.Path).WithHint("export it with --format md or html")
}

// WriteFork creates the session file out (mode 0600; it must not exist)
// and copies lines into it byte for byte through the committed-log
// writer's Writer.CopyAsync (SPEC §5: a fork copies committed history), which
// reads each as the new file's reader will and holds the tree rules, but
// not the writer's strictness for new entries: integers beyond 2^53 and
// escaped lone surrogates of the source are copied. The header and label
// fixes ForkLines makes are grove's own JSON and would pass that
// strictness too. If any append fails, the new
// file is removed, so no half fork is left behind. Errors (*errs.Error):
// file_exists when out is there, io_error when it cannot be created, and
// those of jsonl.OpenWriter and Writer.Append (wrapped, naming the failing
// line, 1 = the header).
func WriteFork(out string, lines [][]byte) (err error) {
	return writeFork(out, func(yield func(n int, line []byte) error) error {
		for i, l := range lines {
			if err := yield(i+1, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// forkWindow bounds the bytes of the copies writeFork has issued and not
// yet waited for: a fork of a large session is never held whole.
const forkWindow = 1 << 20

// writeFork is WriteFork of the lines each gives in order (n numbers them
// from 1, the header): each line is copied as it comes, no more than
// forkWindow bytes of them pending at once. An error of each's stops the
// copy and is returned, the new file removed.
func writeFork(out string, each func(yield func(n int, line []byte) error) error) (err error) {
	if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(os.PathSeparator)) {
		// A folder that exists was given a file name in it already.
		return errs.New(errs.CodeIO, "cannot create the new session file: no folder "+out).In(out).
			WithHint("make the folder first (mkdir -p), or name the new file")
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return ExistsError(out)
		}
		return errs.Wrap(errs.CodeIO, err, "cannot create the new session file: "+errs.PathReason(err)).In(out)
	}
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(out)
		}
	}()
	// One fsync at the end, not one per line: until it returns, the fork
	// is not done, and a crash leaves at worst a torn copy (the source is
	// never touched).
	w, err := jsonl.OpenWriter(out, jsonl.WriterOptions{})
	if err != nil {
		return err
	}
	type issued struct {
		n    int
		size int
		p    *jsonl.Pending
	}
	var pending []issued
	held := 0
	// settle waits for the oldest pending copies until at most keep bytes
	// are pending; the first failure is the answer.
	settle := func(keep int) error {
		for len(pending) > 0 && held > keep {
			c := pending[0]
			pending, held = pending[1:], held-c.size
			if perr := c.p.Wait(); perr != nil {
				return fmt.Errorf("%s line %d: %w", out, c.n, perr)
			}
		}
		return nil
	}
	err = each(func(n int, line []byte) error {
		pending = append(pending, issued{n, len(line), w.CopyAsync(line)})
		held += len(line)
		return settle(forkWindow)
	})
	if serr := settle(-1); err == nil {
		err = serr
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncFile(out)
	}
	return err
}

// syncFile flushes the file at path to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// ExistsError is file_exists for an output file that is already there.
func ExistsError(path string) *errs.Error {
	return errs.Wrap(errs.CodeFileExists, os.ErrExist, "the file is already there; grove never appends to or replaces it").In(path).WithHint("choose another --out (md and html: --force replaces it)")
}
