package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/internal/cliutil"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// Exit statuses, decided only in run.
const (
	exitOK     = 0 // the corpus was written
	exitFailed = 1 // writing failed, or the directory was not empty
	exitUsage  = 2 // the command line was wrong
)

const exitHelp = `EXIT STATUS:
   0  the corpus was written
   1  writing failed, or --out is not empty (see --force)
   2  the command line was wrong`

// usageError is a wrong command line: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func newApp(stdout, stderr io.Writer) *cli.App {
	d := corpusgen.DefaultOptions()
	return &cli.App{
		Name:        "grove-corpus",
		Usage:       "write a deterministic synthetic archive of agent sessions (pi, plain, Claude Code, Codex and messages-log JSONL) for benchmarks",
		UsageText:   "grove-corpus --out DIR [--seed N] [--size 1GB] [flags]",
		Description: exitHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "directory to write (created; must be empty unless --force)", Required: true},
			&cli.Int64Flag{Name: "seed", Usage: "random seed: same flags and seed, same bytes", Value: d.Seed},
			&cli.StringFlag{Name: "size", Usage: "total size of the ordinary sessions (10MB, 1GB, 1GiB, bytes)", Value: "100MB"},
			&cli.StringFlag{Name: "big-session", Usage: "also write one pi session of this size (e.g. 500MB)", Value: "0"},
			&cli.IntFlag{Name: "files", Usage: "stop after this many ordinary sessions even if --size is not reached; 0 for no limit"},
			&cli.StringFlag{Name: "max-session", Usage: "cap every ordinary session's size (e.g. 8KB, with --files for many small files); 0 for the default", Value: "0"},
			&cli.IntFlag{Name: "workspaces", Usage: "distinct workspaces (cwds); 0 picks one from --size"},
			&cli.Float64Flag{Name: "chinese", Usage: "share of conversation turns written in Chinese", Value: d.ChineseShare},
			&cli.Float64Flag{Name: "image-rate", Usage: "per session, probability of one 1-4 MB base64 image", Value: d.ImageRate},
			&cli.Float64Flag{Name: "damage-rate", Usage: "per session, probability of a torn tail, a bad line or a missing parent", Value: d.DamageRate},
			&cli.Float64Flag{Name: "plain-share", Usage: "share of sessions in the plain dialect (SPEC §3.1)", Value: d.PlainShare},
			&cli.Float64Flag{Name: "fork-rate", Usage: "share of pi sessions that fork an earlier one", Value: d.ForkRate},
			&cli.StringFlag{Name: "dialects", Usage: "dialect mix, e.g. pi=0.4,claude=0.3,codex=0.2,messages or claude (a name without a share takes the rest); replaces --plain-share"},
			&cli.Float64Flag{Name: "subagent-rate", Usage: "per Claude session, probability of 1-3 sub-agent files", Value: 0.2},
			&cli.IntFlag{Name: "workers", Usage: "files written at once; 0 means one per CPU (never changes the output)"},
			&cli.BoolFlag{Name: "force", Usage: "write into --out even if it is not empty"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as one JSON object"},
		},
		HideHelpCommand: true,
		Writer:          stdout,
		ErrWriter:       stderr,
		ExitErrHandler:  func(*cli.Context, error) {}, // exit statuses are decided in run
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError{fmt.Errorf("unexpected argument %q (flags only)", c.Args().First())}
			}
			o := d
			var err error
			if o.Size, err = corpusgen.ParseSize(c.String("size")); err != nil {
				return usageError{fmt.Errorf("--size: %w", err)}
			}
			if o.BigSession, err = corpusgen.ParseSize(c.String("big-session")); err != nil {
				return usageError{fmt.Errorf("--big-session: %w", err)}
			}
			if o.MaxSession, err = corpusgen.ParseSize(c.String("max-session")); err != nil {
				return usageError{fmt.Errorf("--max-session: %w", err)}
			}
			o.Seed, o.Workspaces, o.Workers, o.Force = c.Int64("seed"), c.Int("workspaces"), c.Int("workers"), c.Bool("force")
			o.Files = c.Int("files")
			o.ChineseShare, o.ImageRate, o.DamageRate = c.Float64("chinese"), c.Float64("image-rate"), c.Float64("damage-rate")
			o.PlainShare, o.ForkRate = c.Float64("plain-share"), c.Float64("fork-rate")
			o.SubagentRate = c.Float64("subagent-rate")
			if v := c.String("dialects"); v != "" {
				if err := o.SetDialects(v); err != nil {
					return usageError{fmt.Errorf("--dialects: %w", err)}
				}
			}
			return runGenerate(c.Context, c.String("out"), o, c.Bool("json"), stdout)
		},
	}
}

// summary is the one line (or, with --json, the one object) printed.
type summary struct {
	Dir      string  `json:"dir"`
	Files    int     `json:"files"`
	Forks    int     `json:"forks"`
	Damaged  int     `json:"damaged"`
	Bytes    int64   `json:"bytes"`
	Entries  int64   `json:"entries"`
	Seconds  float64 `json:"seconds"`
	MBPerSec float64 `json:"mb_per_s"` // 10^6 bytes per second
}

// runGenerate writes the corpus and its summary to w.
func runGenerate(ctx context.Context, dir string, o corpusgen.Options, asJSON bool, w io.Writer) error {
	start := time.Now()
	m, err := corpusgen.Generate(ctx, dir, o)
	if err != nil {
		return err
	}
	s := summary{Dir: dir, Files: len(m.Files), Bytes: m.Bytes, Entries: m.Entries,
		Seconds: time.Since(start).Seconds()}
	s.MBPerSec = float64(s.Bytes) / 1e6 / s.Seconds
	for _, f := range m.Files {
		if f.Forked {
			s.Forks++
		}
		if f.Damage != "" {
			s.Damaged++
		}
	}
	if asJSON {
		return json.NewEncoder(w).Encode(s)
	}
	_, err = fmt.Fprintf(w, "wrote %d files (%d forks, %d damaged), %s, %d entries in %.1f s (%.0f MB/s) to %s\n",
		s.Files, s.Forks, s.Damaged, corpusgen.FormatSize(s.Bytes), s.Entries, s.Seconds, s.MBPerSec, s.Dir)
	return err
}

// run runs the command with args and returns the exit status; it never
// calls os.Exit, so deferred cleanup always runs.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := newApp(stdout, stderr).RunContext(ctx, args)
	if err == nil {
		return exitOK
	}
	msg := strings.NewReplacer("\n", `\n`).Replace(err.Error())
	fmt.Fprintf(stderr, "grove-corpus: %s\n", msg)
	var u usageError
	if errors.As(err, &u) || errors.Is(err, corpusgen.ErrBadOptions) || cliutil.IsFlagError(err) {
		return exitUsage
	}
	return exitFailed
}
