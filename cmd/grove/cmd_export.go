package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/plural"
)

// kindOfFile names what a non-regular file is, for people.
func kindOfFile(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// reason is the operating system's words for err, without the path the
// error repeats (a temporary file's name would only confuse).
func reason(err error) string {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return errs.Reason(err)
}

func exportCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write the path to LEAF as a Markdown transcript, one HTML page, or a new pi session (a fork)",
		ArgsUsage: "SESSION [LEAF]",
		Description: `LEAF defaults to the session's active leaf. The document goes to stdout, or to
--out FILE (then the answer is {"written": FILE}).

  md     a readable transcript: every entry of the path, tool calls and results
         legible, thinking folded
  html   the same as one self-contained page (no external files)
  jsonl  a new pi version 3 session holding the path: a new header whose
         parentSession is the source file, the entries copied unchanged
         (version 1 and 2 entries migrated as pi migrates them). With --out it
         is written through grove's committed-log writer; --out DIR writes
         DIR/<time>_<id>.jsonl, pi's own naming, so a pi sessions directory
         takes it as a new session.

An existing --out file is never appended to; md and html replace one only
with --force. md and html are never written under a name ending in .jsonl
(every agent tool would read it as a session): a usage error, exit 2. A session file is never replaced, with or without --force
(would_replace_session): the source, any indexed session's file, a file
under a root the index remembers, or a file whose first line is a session
header or entry of any dialect. Nor is grove's index (would_replace_index):
the --db file, the files beside it (-wal, -shm, -journal, .lock, .sources,
.rebuild, .damaged-*), or any file that is a grove index.

md and html are written as they are made, one entry at a time: --out FILE
goes into a temporary file beside FILE, put in place only when whole (a
Ctrl-C or a failure leaves nothing); on stdout a Ctrl-C stops the
document part-way. A message text of 1 MiB or more is shown as written,
not parsed as Markdown.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "md", Usage: "md, html or jsonl"},
			&cli.StringFlag{Name: "out", Usage: "write to `FILE` (or, for jsonl, into directory FILE) instead of stdout (- is stdout)"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing md or html --out file (never a session file or the index)"},
		},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 2); err != nil {
				return err
			}
			o := exportOptions{format: c.String("format"), out: c.String("out"), force: c.Bool("force")}
			if o.out == "-" {
				o.out = "" // stdout, as usual
			}
			switch o.format {
			case "md", "html", "jsonl":
			default:
				return usagef("export: --format %q: want md, html or jsonl", o.format)
			}
			return runExport(c.Context, g, c.Args().Get(0), c.Args().Get(1), o)
		},
	}
}

type exportOptions struct {
	format string // md, html or jsonl
	out    string // "" = stdout
	force  bool   // replace an existing md/html file
}

func runExport(ctx context.Context, g *env, session, leaf string, o exportOptions) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.RefuseCompressed(ctx, session); err != nil {
		return err
	}
	if o.format == "jsonl" {
		return runFork(ctx, g, a, session, leaf, o)
	}
	t, err := a.Transcript(ctx, session, leaf)
	if err != nil {
		return err
	}
	render := t.Markdown
	if o.format == "html" {
		render = t.HTML
	}
	what := fmt.Sprintf("%s of %s, path to %s, %s", o.format, t.Session.SessionID, t.Leaf, plural.Count(t.Entries, "entry", "entries"))
	if o.out == "" {
		// Streamed to stdout as it is made: a Ctrl-C stops the output
		// where it is (see output), leaving part of a document on the
		// pipe, as any streaming tool does.
		return render(g.stdout)
	}
	if err := a.CheckExportTarget(ctx, t.Session, o.out); err != nil {
		return err // a session or the index there says more than its name
	}
	if err := transcriptName(o.out, o.format); err != nil {
		return err
	}
	if err := writeDocument(ctx, o.out, o.force, render); err != nil {
		return err
	}
	return written(g, o.out, what)
}

// runFork is export --format jsonl: a new pi session of the path
// (archive.Fork), written to --out or to stdout.
func runFork(ctx context.Context, g *env, a *archive.Archive, session, leaf string, o exportOptions) error {
	if o.force {
		// A session there is refused as such, with or without --force
		// (docs/writing.md): that says more than the flag's misuse.
		if _, err := a.Fork(ctx, session, leaf, archive.ForkOptions{Out: o.out, DryRun: true}); err != nil {
			return err
		}
		return usagef("export: --force is for md and html; a jsonl fork never replaces a file")
	}
	// Without --out the lines are streamed to stdout as they are made,
	// once every one was made and checked: a Ctrl-C then stops the output
	// where it is (see output).
	f, err := a.Fork(ctx, session, leaf, archive.ForkOptions{Out: o.out, To: g.stdout})
	if err != nil {
		return err
	}
	if f.Out != "" {
		what := fmt.Sprintf("a new pi session %s forked from %s at %s: %s", f.ID, f.Source, f.Leaf, plural.Count(f.Entries, "entry", "entries"))
		if f.LabelFixes > 0 {
			what += fmt.Sprintf(", then %d label %s to match the source's labels", f.LabelFixes, plural.Noun(f.LabelFixes, "entry", "entries"))
		}
		return written(g, f.Out, what)
	}
	return nil
}

// transcriptName refuses an md or html --out whose name ends in .jsonl
// (in any case), wherever it is: pi, Claude Code, Codex and grove index
// read every *.jsonl file as a session, so a transcript under that name
// is a damaged session to each of them (thousands of bad lines). A usage
// error (exit 2): the name is what is wrong, and nothing is written.
func transcriptName(out, format string) error {
	base := filepath.Base(out)
	if !strings.HasSuffix(strings.ToLower(base), ".jsonl") {
		return nil
	}
	what := "a Markdown transcript"
	if format == "html" {
		what = "an HTML page"
	}
	return usagef("export: --out %s: %s named *.jsonl would be read as a broken session by pi, every other agent tool and grove index; name it %s, or use --format jsonl for a fork",
		out, what, strings.TrimSuffix(base, base[len(base)-len(".jsonl"):])+"."+format)
}

// written answers an export with --out. The file is complete by then, so
// the answer goes out even after a late Ctrl-C: saying it failed would
// make a second run fork again.
func written(g *env, file, what string) error {
	if g.json {
		return writeJSON(g.rawStdout, map[string]string{"written": file})
	}
	_, err := fmt.Fprintf(g.rawStdout, "wrote %s: %s\n", file, cell(what))
	return err
}

// writeDocument writes the document render makes to path, as it is made,
// into a temporary file beside path (mode 0600 less the umask), synced,
// then renamed into place, so a reader never sees half a document and a
// failure or a Ctrl-C while it is made (ctx cancelled) leaves nothing: the
// document is never held whole in memory (SPEC §2.8). An existing path is
// replaced only when force is set; without force the file is linked into
// place, which fails if another process made path meanwhile.
//
// Only a regular file is ever replaced, and only one this user may write:
// a directory, symlink, device or FIFO at path is refused even with force
// (a rename would put a new file in its place, not write through it).
// Errors: file_exists, io, disk_full (with the bytes that could not be
// written), or ctx's error.
func writeDocument(ctx context.Context, path string, force bool, render func(io.Writer) error) error {
	exists := false
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			what := kindOfFile(fi.Mode())
			if fi.Mode()&os.ModeSymlink != 0 {
				// CheckExportTarget followed it already: a session there is
				// would_replace_session. Say where it points.
				if to, err := os.Readlink(path); err == nil {
					what += " to " + cell(to)
					if _, err := os.Stat(path); err != nil {
						what += ", which does not exist"
					}
				}
			}
			return errs.New(errs.CodeFileExists, "--out names a "+what+", not a regular file; grove writes only regular files").In(path).WithHint("write to stdout (--out - or no --out) and redirect, or choose another --out")
		}
		if !force {
			return archive.ExistsError(path)
		}
		if err := mayWrite(path, fi); err != nil {
			return errs.Wrap(errs.CodeIO, err, "cannot replace the file: you may not write it ("+err.Error()+")").In(path)
		}
		exists = true
	}
	tw := &tempWriter{}
	fail := func(err error) error {
		if df := archive.DiskFull(path, err, tw.lost, "grove export"); df != nil {
			return df
		}
		return errs.Wrap(errs.CodeIO, err, "cannot write the export: "+reason(err)).In(path)
	}
	// CreateTemp makes the file 0600 (less what the umask takes away):
	// a transcript holds what the session did (SPEC §6).
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	tw.f = tmp
	if err := render(tw); err != nil {
		tmp.Close()
		if tw.err != nil {
			return fail(tw.err)
		}
		return err
	}
	if err := ctx.Err(); err != nil {
		tmp.Close()
		return err // Ctrl-C while the document was being made: write nothing
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if !exists {
		err := os.Link(tmp.Name(), path)
		if errors.Is(err, os.ErrExist) {
			return archive.ExistsError(path) // made by someone else since the check
		}
		if err == nil {
			return nil
		}
		// A file system without hard links: rename, as for --force.
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return nil
}

// tempWriter is the temporary file an export is written into. It
// remembers the first write error, and how many bytes that write could not
// write (for disk_full), and stops at it.
type tempWriter struct {
	f    *os.File
	err  error
	lost int64
}

func (t *tempWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.f.Write(p)
	if err != nil {
		t.err, t.lost = err, int64(len(p)-n)
	}
	return n, err
}
