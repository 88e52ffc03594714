package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/plural"
)

func resumeCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "the agent's own command that goes on from LEAF (default: the active leaf), run in the session's workspace",
		ArgsUsage: "SESSION [LEAF]",
		Description: `Prints one line for a POSIX shell, cd WORKSPACE && COMMAND (--json:
{"agent","cwd","argv"}); --exec runs it instead.

  pi           pi --session FILE; another leaf is first forked (as export
               --format jsonl) into pi's sessions folder for the workspace, and
               the fork is resumed
  Claude Code  claude --resume ID; another entry needs --prompt: claude -p
               --resume ID --resume-session-at ENTRY --fork-session --session-id
               NEW PROMPT, then claude --resume NEW (the original stays as it is)
  Codex        codex resume ID, at the end of the session only
  messages,    the file's path: no agent runs it (--exec refuses)
  plain

A workspace that is unknown or not a directory here is refused
(cannot_resume): the agent is never run in another directory.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "exec", Usage: "run the command (grove's process becomes the agent where the system allows)"},
			&cli.StringFlag{Name: "prompt", Usage: "the first message of the branch, for an agent that goes on from an earlier entry only with one (Claude Code)"},
		},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 2); err != nil {
				return err
			}
			if c.Bool("exec") && g.json {
				return usagef("resume: --exec runs the agent, --json prints its command: give one")
			}
			return runResume(c.Context, g, c.Args().Get(0), c.Args().Get(1), c.String("prompt"), c.Bool("exec"))
		},
	}
}

// resumeJSON is `grove --json resume` (SPEC §12).
type resumeJSON struct {
	Agent string   `json:"agent"`
	Cwd   string   `json:"cwd"`
	Argv  []string `json:"argv"`
	Then  []string `json:"then,omitempty"` // a second command, run once argv succeeded
	File  string   `json:"file,omitempty"` // no agent runs it: the session file
	Fork  string   `json:"fork,omitempty"` // the pi fork written to go on from another leaf
}

func runResume(ctx context.Context, g *env, session, leaf, prompt string, run bool) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.RefuseCompressed(ctx, session); err != nil {
		return err
	}
	r, err := a.Resume(ctx, session, leaf, archive.ResumeOptions{Prompt: prompt})
	if err != nil {
		return err
	}
	return answerResume(g, a, r, run)
}

// answerResume prints r (grove resume, grove pick): its line, or with
// --json its document; with run it closes a and runs the command instead.
// A pi fork written to get there is said on stderr.
func answerResume(g *env, a *archive.Archive, r *archive.Resume, run bool) error {
	if r.Fork != nil {
		g.warn(fmt.Sprintf("wrote %s: a new pi session %s forked from %s at %s: %s", cell(r.Fork.Out), r.Fork.ID, r.Fork.Source, r.Fork.Leaf,
			plural.Count(r.Fork.Entries, "entry", "entries")))
	}
	if r.Reused != nil {
		g.warn(fmt.Sprintf("going on in %s, the fork of %s at %s written before (untouched since): no new fork", cell(r.Reused.Out), r.Reused.Source, r.Reused.Leaf))
	}
	if run {
		a.Close()
		return execResume(g, r)
	}
	if g.json {
		argv := r.Argv
		if argv == nil {
			argv = []string{}
		}
		out := resumeJSON{Agent: r.Agent, Cwd: r.Cwd, Argv: argv, Then: r.Then, File: r.File}
		if r.Fork != nil {
			out.Fork = r.Fork.Out
		} else if r.Reused != nil {
			out.Fork = r.Reused.Out
		}
		return writeJSON(g.stdout, out)
	}
	_, err := fmt.Fprintln(g.stdout, r.Line())
	return err
}

// childExit is an agent grove ran that exited with a status other than 0:
// grove exits with that status, the agent having said why.
type childExit struct{ code int }

func (e childExit) Error() string { return fmt.Sprintf("the agent exited with status %d", e.code) }

// execResume runs r's command in its workspace with grove's standard
// streams: a second command (Then) runs once the first succeeded. The
// last command replaces grove's process where the system allows
// (execReplace); elsewhere, and for a first of two, it runs as a child and
// grove exits with its status.
func execResume(g *env, r *archive.Resume) error {
	if r.Argv == nil {
		return errs.New(errs.CodeCannotResume, "no agent runs a "+r.Agent+" file, so there is nothing to run: its program goes on by appending to it (grove append FILE)").In(r.File)
	}
	cmds := [][]string{r.Argv}
	if r.Then != nil {
		cmds = append(cmds, r.Then)
	}
	for i, argv := range cmds {
		prog, err := exec.LookPath(argv[0])
		if err != nil {
			return errs.New(errs.CodeCannotResume, argv[0]+" ("+r.Agent+") is not on PATH, so grove cannot run it: "+r.Line()).
				WithHint("install it, or run the line above where it is")
		}
		if i == len(cmds)-1 {
			return execReplace(prog, argv, r.Cwd)
		}
		if err := runChild(prog, argv, r.Cwd); err != nil {
			return err
		}
	}
	return nil
}

// runChild runs prog with argv in dir, with grove's standard streams, and
// waits: a non-zero exit is childExit. Ctrl-C reaches the child as it
// reaches grove (one process group), and the child decides what it means.
func runChild(prog string, argv []string, dir string) error {
	cmd := &exec.Cmd{Path: prog, Args: argv, Dir: dir, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 {
			code = exitFailed // killed by a signal
		}
		return childExit{code}
	}
	return err
}
