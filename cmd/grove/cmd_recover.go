package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/plural"
)

func recoverCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "recover",
		Usage:     "read one session file and report its committed lines, bad lines, duplicate ids and tail (never changes the file)",
		ArgsUsage: "FILE",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "strict", Usage: "fail at the first bad line or duplicate id, as a writer opening the file would"}},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 1); err != nil {
				return err
			}
			return runRecover(c.Context, g, c.Args().First(), c.Bool("strict"))
		},
	}
}

// warningJSON is one of recover's warnings; Path is the field path inside
// the line of a lone_surrogate (SPEC §2.9).
type warningJSON struct {
	Code   errs.Code `json:"code"`
	Line   int       `json:"line"`
	Offset int64     `json:"offset"`
	Path   string    `json:"path,omitempty"`
}

// errorJSON is one of recover's errors; a duplicate_id names its id and
// every line that has it (SPEC §4 rule 1).
type errorJSON struct {
	Code    errs.Code `json:"code"`
	Line    int       `json:"line"`
	Offset  int64     `json:"offset"`
	Message string    `json:"message"`
	ID      string    `json:"id,omitempty"`
	Lines   []int     `json:"lines,omitempty"`
}

func runRecover(ctx context.Context, g *env, path string, strict bool) error {
	res, err := archive.Recover(path, strict)
	if err != nil {
		return err
	}
	out := struct {
		Dialect  archive.Dialect `json:"dialect"`
		Lines    int             `json:"lines"`
		Entries  int             `json:"entries"`
		State    archive.State   `json:"state"`
		Warnings []warningJSON   `json:"warnings"`
		Errors   []errorJSON     `json:"errors"`
	}{res.Dialect, res.Lines, res.Entries, res.State, nil, nil}
	warnings, errs := []warningJSON{}, []errorJSON{}
	for _, w := range res.Warnings {
		warnings = append(warnings, warningJSON{w.Code, w.Line, w.Offset, w.Field})
	}
	for _, e := range res.Errors {
		errs = append(errs, errorJSON{e.Code, e.Line, e.Offset, e.Message, e.ID, e.Lines})
	}
	out.Warnings, out.Errors = warnings, errs
	if g.json {
		return writeJSON(g.stdout, out)
	}
	fmt.Fprintf(g.stdout, "%s: %s dialect, %s, %s, state %s\n", path, res.Dialect, plural.Count(res.Lines, "committed line", "committed lines"), plural.Count(res.Entries, "entry", "entries"), res.State)
	for _, w := range res.Warnings {
		fmt.Fprintf(g.stdout, "  warning line %d (byte %d): %s [%s]\n", w.Line, w.Offset, cell(w.Message), w.Code)
	}
	for _, e := range res.Errors {
		fmt.Fprintf(g.stdout, "  error   line %d (byte %d): %s [%s]\n", e.Line, e.Offset, cell(e.Message), e.Code)
	}
	return nil
}
