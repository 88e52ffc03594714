package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

func appendCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "append",
		Usage:     "append entries (JSON, one per line on stdin) to a session file through the committed-log writer",
		ArgsUsage: "FILE",
		Description: "Each line is validated against the file's dialect and appended in order; a line that fails\n" +
			"fails alone and is reported with its input line number. The file is created (mode 0600) if\n" +
			"missing; its first line decides its dialect. Exit status 1 if any line failed.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fsync", Usage: "flush each append to disk before the next (survives a power cut)"},
			&cli.DurationFlag{Name: "wait", Usage: "wait up to this long (e.g. 10s) for another writer of the file to finish, instead of failing with locked at once"},
		},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 1); err != nil {
				return err
			}
			if c.Duration("wait") < 0 {
				return usagef("--wait %s: give a duration of 0 or more, such as 10s", c.Duration("wait"))
			}
			return runAppend(c.Context, g, c.Args().First(), os.Stdin, archive.AppendOptions{Fsync: c.Bool("fsync"), Wait: c.Duration("wait")})
		},
	}
}

// runAppend appends the lines of in to the file at path (archive.Append)
// and prints the outcome: the document with --json, else a count on
// stdout and each failed line on stderr.
func runAppend(ctx context.Context, g *env, path string, in io.Reader, opts archive.AppendOptions) error {
	out, closeErr := archive.Append(ctx, path, in, opts)
	if out == nil {
		return closeErr
	}
	if g.json {
		if err := writeJSON(g.stdout, out); err != nil {
			return err
		}
	} else {
		head := ""
		if out.Header {
			head = " (after a session header)"
		}
		fmt.Fprintf(g.stdout, "appended %s to %s%s\n", plural.Count(len(out.Appended), "entry", "entries"), path, head)
		for i := 0; i < len(out.Failed); i++ {
			f := out.Failed[i]
			fmt.Fprintf(g.stderr, "grove: %s: stdin line %d: %s [%s]\n", path, f.Line, f.Message, f.Code)
			// Once a write fails, the writer refuses every later line with
			// that same error (SPEC §5, tainted): one line says so.
			j := i + 1
			for j < len(out.Failed) && out.Failed[j].Code == f.Code && out.Failed[j].Message == f.Message && out.Failed[j].Line == out.Failed[j-1].Line+1 {
				j++
			}
			if n := j - i - 1; n > 1 {
				fmt.Fprintf(g.stderr, "grove: %s: stdin lines %d-%d: not appended, the same error [%s]\n", path, f.Line+1, out.Failed[j-1].Line, f.Code)
				i = j - 1
			}
		}
		if out.InputError != "" {
			fmt.Fprintf(g.stderr, "grove: reading stdin stopped: %s [io_error]\n", out.InputError)
		}
		if out.Interrupted {
			fmt.Fprintln(g.stderr, "grove: interrupted; the lines above were appended, the rest of stdin was not read")
		}
	}
	if closeErr != nil {
		return closeErr
	}
	if !out.Whole() {
		return silentFailure{"not every line was appended"}
	}
	return nil
}
