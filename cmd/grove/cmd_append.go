package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/jsonl"
)

func appendCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "append",
		Usage:     "append entries (JSON, one per line on stdin) to a session file through the committed-log writer",
		ArgsUsage: "FILE",
		Description: "Each line is validated against the file's dialect and appended in order; a line that fails\n" +
			"fails alone and is reported with its input line number. The file is created (mode 0600) if\n" +
			"missing; its first line decides its dialect. Exit status 1 if any line failed.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "fsync", Usage: "flush each append to disk before the next (survives a power cut)"}},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 1); err != nil {
				return err
			}
			return runAppend(c.Context, g, c.Args().First(), os.Stdin, c.Bool("fsync"))
		},
	}
}

type appendFailure struct {
	Line    int        `json:"line"`
	Code    jsonl.Code `json:"code"`
	Message string     `json:"message"`
}

func runAppend(ctx context.Context, g *env, path string, in io.Reader, fsync bool) error {
	w, err := jsonl.OpenWriter(path, jsonl.WriterOptions{Fsync: fsync})
	if err != nil {
		return err
	}
	type issued struct {
		line int
		p    *jsonl.Pending
	}
	var all []issued
	sc := jsonl.NewScanner(in)
	for sc.Scan() && ctx.Err() == nil {
		l := sc.Line()
		if l.Blank() {
			continue
		}
		all = append(all, issued{l.Num, w.AppendAsync(json.RawMessage(l.Bytes))})
	}
	closeErr := w.Close()
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	out := struct {
		Appended []string        `json:"appended"`
		Failed   []appendFailure `json:"failed"`
	}{[]string{}, []appendFailure{}}
	for _, is := range all {
		err := is.p.Wait()
		if err == nil {
			if is.p.ID != "" {
				out.Appended = append(out.Appended, is.p.ID)
			}
			continue
		}
		f := appendFailure{Line: is.line, Code: jsonl.CodeOf(err), Message: err.Error()}
		var je *jsonl.Error
		if errors.As(err, &je) {
			f.Message = je.Message
		}
		out.Failed = append(out.Failed, f)
	}
	if g.json {
		if err := writeJSON(g.stdout, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(g.stdout, "appended %d entries to %s\n", len(out.Appended), path)
		for _, f := range out.Failed {
			fmt.Fprintf(g.stderr, "grove: stdin line %d: %s [%s]\n", f.Line, f.Message, f.Code)
		}
	}
	if closeErr != nil {
		return closeErr
	}
	if len(out.Failed) > 0 {
		return silentFailure{"some entries were not appended"}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}
