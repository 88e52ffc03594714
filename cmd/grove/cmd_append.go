package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
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
	Line    int       `json:"line"`
	Code    errs.Code `json:"code"`
	Message string    `json:"message"`
}

func runAppend(ctx context.Context, g *env, path string, in io.Reader, fsync bool) error {
	_, statErr := os.Lstat(path)
	existed := statErr == nil
	if existed {
		if err := checkWritable(ctx, path, "append to", "grove appends to pi, plain and messages files only; grove export --format md|html SESSION makes a copy to read"); err != nil {
			return err
		}
	}
	w, err := jsonl.OpenWriter(path, jsonl.WriterOptions{Fsync: fsync})
	if err != nil {
		return err
	}
	defer func() {
		// Leave no empty session file behind when nothing was appended to a
		// file this command created.
		if fi, err := os.Stat(path); !existed && err == nil && fi.Size() == 0 {
			os.Remove(path)
		}
	}()
	// A file no append can go to (a torn tail, pi version 1) fails once,
	// naming where, instead of once per stdin line.
	if err := w.Err(); err != nil {
		w.Close()
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
	out := struct {
		Appended    []string        `json:"appended"`
		Failed      []appendFailure `json:"failed"`
		Header      bool            `json:"header,omitempty"`      // a pi header line was written (it is no entry)
		Interrupted bool            `json:"interrupted,omitempty"` // Ctrl-C: stdin after the last issued line was not read
		StdinError  string          `json:"stdin_error,omitempty"` // stdin could not be read to the end
	}{Appended: []string{}, Failed: []appendFailure{}, Interrupted: ctx.Err() != nil}
	if err := sc.Err(); err != nil {
		out.StdinError = err.Error()
	}
	for _, is := range all {
		err := is.p.Wait()
		if err == nil {
			if is.p.ID != "" {
				out.Appended = append(out.Appended, is.p.ID)
			} else {
				out.Header = true
			}
			continue
		}
		if df := archive.DiskFull(path, err, 0, "grove repair (for a torn last line), then grove append"); df != nil {
			err = df // the writer is tainted by it, but what to do is free space
		}
		f := appendFailure{Line: is.line, Code: errs.CodeOf(err), Message: err.Error()}
		var je *errs.Error
		if errors.As(err, &je) {
			f.Message = je.Message
			if je.Code == errs.CodeDiskFull {
				f.Message += "; " + je.Hint
			}
		}
		out.Failed = append(out.Failed, f)
	}
	if g.json {
		if err := writeJSON(g.stdout, out); err != nil {
			return err
		}
	} else {
		noun := "entries"
		if len(out.Appended) == 1 {
			noun = "entry"
		}
		head := ""
		if out.Header {
			head = " (after a session header)"
		}
		fmt.Fprintf(g.stdout, "appended %d %s to %s%s\n", len(out.Appended), noun, path, head)
		for _, f := range out.Failed {
			fmt.Fprintf(g.stderr, "grove: %s: stdin line %d: %s [%s]\n", path, f.Line, f.Message, f.Code)
		}
		if out.StdinError != "" {
			fmt.Fprintf(g.stderr, "grove: reading stdin stopped: %s [io_error]\n", out.StdinError)
		}
		if out.Interrupted {
			fmt.Fprintln(g.stderr, "grove: interrupted; the lines above were appended, the rest of stdin was not read")
		}
	}
	if closeErr != nil {
		return closeErr
	}
	if len(out.Failed) > 0 || out.Interrupted || out.StdinError != "" {
		return silentFailure{"not every line was appended"}
	}
	return nil
}
