package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent"
)

// ResumeOptions say how Resume answers.
type ResumeOptions struct {
	// Prompt is the first message of a new branch, for an agent that goes
	// on from an earlier entry only when given one (Claude Code).
	Prompt string
	// Plan writes nothing and asks for nothing: a pi leaf other than the
	// active one is answered with NeedsFork set, an earlier Claude Code
	// entry without a Prompt with NeedsPrompt, each without a command
	// (grove serve, which writes nothing; grove pick, before it asks for
	// a prompt).
	Plan bool
	// Home and Getenv place pi's fork (its sessions folder); "" and nil
	// mean the user's home directory and os.Getenv.
	Home   string
	Getenv func(string) string
	// Now is the fork's time; zero means time.Now().
	Now time.Time
}

// Resume is the command that goes on from a leaf of a session in its
// agent (SPEC §12 `grove resume`).
type Resume struct {
	Session *Session
	Leaf    string // the entry gone on from (the active leaf when none was asked for)
	Agent   string // the agent as people know it (Agent.Name): "pi", "Claude Code", "Codex", "messages", "plain"
	Cwd     string // the directory the command runs in: the session's workspace
	Argv    []string
	Then    []string // a second command, run in Cwd once Argv succeeded; nil for none
	// File is the session file, for a dialect no agent runs (messages,
	// plain); Argv is then nil.
	File string
	// Fork is the new pi session Resume wrote to go on from a leaf other
	// than the active one; nil when none was written.
	Fork *Fork
	// Reused is the fork of the same path an earlier Resume wrote into
	// the same folder, still untouched, gone on from instead of writing
	// another; nil when none was.
	Reused *Fork
	// NeedsFork is set, with Plan, on a pi leaf other than the active one:
	// Resume without Plan forks it (and the answer has a command).
	NeedsFork bool
	// NeedsPrompt is set, with Plan, when the agent goes on from the leaf
	// only with a first message (Claude Code): Resume with a Prompt
	// answers the command.
	NeedsPrompt bool
}

// Resume answers the command that goes on from leaf (the active leaf when
// "") of session in the session's own agent, run in its workspace (SPEC
// §12; each agent's Resume says its command and where it comes from).
// For pi, a leaf other than the active one is first forked (SPEC §5, as
// Fork) into pi's own sessions folder for the workspace
// (agent.ForkResumer.ForkDir), made 0700 if missing, and the fork is
// resumed; a fork an earlier Resume wrote there of the same path, that no
// one has written to since, is resumed instead (Reused), so asking twice
// writes one fork. With opts.Plan nothing is written and NeedsFork says so.
//
// A session whose file is gone (StateGone) is resumed from a fork of its
// kept bytes by an agent that forks (pi), and refused by the others.
//
// Errors: those of Path; cannot_resume when the agent has no command for
// that entry (the agent's reason, naming what would work) or when the
// command would run in a workspace that is unknown or not a directory
// here (a command is never run elsewhere); those of Fork.
func (a *Archive) Resume(ctx context.Context, session, leaf string, opts ResumeOptions) (*Resume, error) {
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	s := p.Session
	if s.State == StateEarlier { // its bytes are only in the kept store, under no agent's name
		return nil, errs.New(errs.CodeCannotResume, "this is an earlier version of a rewritten session file, kept by grove; the agent knows only the file's current version").In(s.Path).
			WithHint("grove export --format jsonl --out DIR makes a new pi session of its path; or resume the current version")
	}
	ag := agent.Of(s.Dialect)
	at := agent.ResumeAt{SessionID: s.SessionID, Path: s.Path, Workspace: s.Workspace, Parent: s.ParentSession,
		Leaf: p.Leaf, Active: s.ActiveLeaf != nil && *s.ActiveLeaf == p.Leaf, Prompt: opts.Prompt, Plan: opts.Plan}
	if s.ParentSession != "" {
		at.Child = ag.ChildKind(s.Path)
	}
	if at.Side, err = a.db().Sidechain(ctx, s.row.SID, p.Leaf); err != nil {
		return nil, err
	}
	out := &Resume{Session: s, Leaf: p.Leaf, Agent: ag.Name(), Cwd: s.Workspace}
	r, ok := ag.(agent.Resumer)
	if !ok {
		return nil, errs.New(errs.CodeCannotResume, "grove knows no command of "+ag.Name()+" that resumes a session").In(s.Path)
	}
	if s.State == StateGone {
		// The file is gone; only grove's kept copy holds the session
		// (SPEC §11). An agent that goes on in a fork goes on in one made
		// of the kept bytes; the others would look for the file.
		if _, ok := r.(agent.ForkResumer); !ok {
			return nil, errs.New(errs.CodeCannotResume, "the session's file is gone ("+ag.Name()+" no longer has it); grove keeps its bytes, so it still answers path, messages and export, but "+ag.Name()+" cannot go on from it").In(s.Path).
				WithHint("grove export --format md shows it; start a new session from what it says")
		}
		at.Active = false
	}
	if fr, ok := r.(agent.ForkResumer); ok && !at.Active {
		if err := runHere(s); err != nil {
			return nil, err
		}
		if opts.Plan {
			out.NeedsFork = true
			return out, nil
		}
		home, getenv := opts.Home, opts.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir := fr.ForkDir(s.Workspace, home, getenv)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, errs.Wrap(errs.CodeIO, err, "cannot make "+ag.Name()+"'s sessions folder for the fork: "+errs.PathReason(err)).In(dir)
		}
		f, err := a.forkOnce(ctx, s, p.Leaf, dir, opts.Now)
		if err != nil {
			return nil, err
		}
		if f.Out == "" {
			return nil, errs.New(errs.CodeIO, "the fork was not written").In(dir)
		}
		if f.reused {
			out.Reused = f
		} else {
			out.Fork = f
		}
		at.SessionID, at.Path, at.Parent, at.Active = f.ID, f.Out, s.Path, true
	}
	if opts.Prompt != "" {
		id, err := uuid.NewRandom()
		if err != nil {
			return nil, err
		}
		at.NewID = id.String()
	}
	cmd, err := r.Resume(at)
	if err != nil {
		return nil, err
	}
	out.Argv, out.Then, out.File, out.NeedsPrompt = cmd.Argv, cmd.Then, cmd.File, cmd.NeedsPrompt
	if out.Argv != nil {
		if err := runHere(s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runHere refuses a command for s whose workspace is unknown, or is not a
// directory on this machine (removed since, or another machine's path):
// an agent run elsewhere would look for the session in the wrong project
// (Claude Code finds a session by id only among its folder's).
func runHere(s *Session) error {
	if s.Workspace == "" {
		return errs.New(errs.CodeCannotResume, "the session's workspace is unknown, so grove does not know where to run its agent").In(s.Path).
			WithHint("cd to the directory it worked in and run the agent's own resume there")
	}
	fi, err := os.Stat(s.Workspace)
	if err != nil || !fi.IsDir() || !filepath.IsAbs(s.Workspace) {
		why := "does not exist here"
		if err == nil {
			why = "is not a directory"
		}
		return errs.New(errs.CodeCannotResume, "the session's workspace "+s.Workspace+" "+why+"; grove runs an agent only in the session's own workspace").In(s.Path).
			WithHint("restore or check out that directory (or run on the machine the session is from)")
	}
	return nil
}

// Line is r as one line of a POSIX shell: `cd WORKSPACE && COMMAND`, and
// `&& THEN` when there is a second command, every word quoted where the
// shell would read it otherwise; for a file no agent runs, its path as it
// is.
func (r *Resume) Line() string {
	if r.Argv == nil {
		return r.File
	}
	line := "cd " + ShellQuote(r.Cwd) + " && " + shellLine(r.Argv)
	if r.Then != nil {
		line += " && " + shellLine(r.Then)
	}
	return line
}

func shellLine(argv []string) string {
	q := make([]string, len(argv))
	for i, w := range argv {
		q[i] = ShellQuote(w)
	}
	return strings.Join(q, " ")
}

// forkOnce is Fork of session s at leaf into dir, unless dir already holds
// such a fork: a *.jsonl file whose header names s.Path as its
// parentSession and whose lines after the header are, byte for byte, those
// Fork would write now (a fork pi has since gone on in has more, and is
// not one). The fork found is returned with reused set.
func (a *Archive) forkOnce(ctx context.Context, s *Session, leaf, dir string, now time.Time) (*Fork, error) {
	var made bytes.Buffer
	f, err := a.Fork(ctx, s.SessionID, leaf, ForkOptions{To: &made, Now: now})
	if err != nil {
		return nil, err
	}
	body := made.Bytes()[bytes.IndexByte(made.Bytes(), '\n')+1:]
	if found := findFork(dir, s.Path, body, f.Entries); found != "" {
		f.Out, f.reused = found, true
		return f, nil
	}
	return a.Fork(ctx, s.SessionID, leaf, ForkOptions{Out: dir, Now: now})
}

// findFork is the file in dir whose first line is a pi header with
// parentSession source and whose lines after it are body's: its first
// copied lines (the path) byte for byte, and the label lines Fork adds
// after them alike but for their fresh id, parentId and timestamp; "" for
// none. Files that cannot be read are passed over: they are not that fork.
func findFork(dir, source string, body []byte, copied int) string {
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, name := range names {
		fi, err := os.Stat(name)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() <= int64(len(body)) || fi.Size() > int64(len(body))+64<<10 {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 || !sameFork(b[nl+1:], body, copied) {
			continue
		}
		var h struct {
			Type          string `json:"type"`
			ParentSession string `json:"parentSession"`
		}
		if json.Unmarshal(b[:nl], &h) == nil && h.Type == "session" && h.ParentSession == source {
			return name
		}
	}
	return ""
}

// sameFork reports whether got holds the lines of want: the first copied
// byte for byte, the others equal but for id, parentId and timestamp.
func sameFork(got, want []byte, copied int) bool {
	if bytes.Equal(got, want) {
		return true
	}
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	if len(g) != len(w) {
		return false
	}
	for i := range w {
		if i < copied || bytes.Equal(g[i], w[i]) {
			if !bytes.Equal(g[i], w[i]) {
				return false
			}
			continue
		}
		var gm, wm map[string]any
		if json.Unmarshal(g[i], &gm) != nil || json.Unmarshal(w[i], &wm) != nil {
			return false
		}
		for _, k := range []string{"id", "parentId", "timestamp"} {
			delete(gm, k)
			delete(wm, k)
		}
		gb, _ := json.Marshal(gm)
		wb, _ := json.Marshal(wm)
		if !bytes.Equal(gb, wb) {
			return false
		}
	}
	return true
}
