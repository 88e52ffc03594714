package serve

import (
	"context"
	"errors"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
)

// resumeView is the resume command of a transcript's leaf (SPEC §12
// `grove resume`): the line to copy, or why there is none.
type resumeView struct {
	Command string // a line for a POSIX shell; "" when there is none
	Note    string // what Command does, when it is grove's rather than the agent's
	Refusal string // why there is no command (the agent's reason, or the workspace's)
}

// resumeOf is the resume command of leaf of p's session, as grove resume
// prints it, without writing anything (archive.ResumeOptions.Plan): a pi
// leaf other than the active one, which needs a fork first, and an
// earlier Claude Code entry, which needs the branch's first message, get
// the grove resume --exec line that does it (after s.opts.Grove).
func (s *Server) resumeOf(ctx context.Context, p *archive.Path) resumeView {
	r, err := s.a.Resume(ctx, p.Session.Path, p.Leaf, archive.ResumeOptions{Plan: true})
	var je *errs.Error
	switch {
	case errors.As(err, &je) && je.Code == errs.CodeCannotResume:
		return resumeView{Refusal: je.Message}
	case err != nil:
		return resumeView{Refusal: "no resume command: " + err.Error()}
	}
	grove := s.opts.Grove
	if grove == "" {
		grove = "grove"
	}
	// The session by its id, unless another session shares it (copies of
	// a project folder): then by its file, which names it alone.
	name := p.Session.SessionID
	if got, err := s.a.ResolveID(ctx, name); err != nil || got.Path != p.Session.Path {
		name = p.Session.Path
	}
	at := archive.ShellQuote(name) + " " + archive.ShellQuote(p.Leaf)
	switch {
	case r.NeedsFork:
		return resumeView{Command: grove + " resume --exec " + at,
			Note: r.Agent + " opens a session at its last entry: grove forks the path to this leaf into " + r.Agent + "'s sessions folder, then runs " + r.Agent + " on the fork."}
	case r.NeedsPrompt:
		return resumeView{Command: grove + " resume --exec --prompt 'first message of the branch' " + at,
			Note: r.Agent + " goes on from an earlier entry only with the branch's first message: put yours in --prompt."}
	case r.Argv == nil:
		return resumeView{Command: r.File, Note: "No agent runs a " + r.Agent + " file: its program goes on by appending to it."}
	}
	return resumeView{Command: r.Line()}
}
