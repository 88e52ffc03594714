package claude

import (
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
)

// Resume is Claude Code's command that goes on from at.Leaf (SPEC §12),
// from its CLI reference: `claude --resume ID` resumes the session by id
// in the folder it was started in (Claude Code looks the id up among that
// project's sessions), at its active leaf (the last leaf that is no
// sidechain, SPEC §3.4).
//
// Another entry: Claude Code's --resume-session-at <message id> keeps
// "only messages up to and including" that entry, and its own help says
// to use it "with --resume in print mode"; in the interactive terminal it
// is ignored and the whole conversation comes back. So the branch takes
// two commands: `claude -p --resume ID --resume-session-at LEAF
// --fork-session --session-id NEW PROMPT` answers the first message of
// the branch in print mode and saves the branch as the new session NEW
// (--fork-session: the original file stays as it is; --session-id: the
// new session's id), then `claude --resume NEW` goes on with it in the
// terminal. Print mode needs that first message (at.Prompt).
//
// Errors (cannot_resume): a sub-agent's file (claude --resume takes the
// main session's id), a sidechain entry (a sub-agent's turn, not a point
// of the main conversation), another entry without at.Prompt, a prompt
// that begins with "-" (claude would read it as a flag). With at.Plan,
// another entry without at.Prompt answers NeedsPrompt instead.
func (Agent) Resume(at kit.ResumeAt) (*kit.Resume, error) {
	refuse := func(msg string) error { return errs.New(errs.CodeCannotResume, msg).In(at.Path) }
	if at.Child == "sub-agent" {
		msg := "a Claude Code sub-agent's session is not resumed on its own (claude --resume takes the main session's id)"
		if at.Parent != "" {
			msg += ": resume its parent session, grove resume " + at.Parent
		}
		return nil, refuse(msg)
	}
	if at.Side {
		return nil, refuse("entry " + at.Leaf + " is on a sidechain (a sub-agent's turn), not a point of the main conversation Claude Code resumes")
	}
	if at.Active {
		return &kit.Resume{Argv: []string{"claude", "--resume", at.SessionID}}, nil
	}
	if at.Prompt == "" {
		if at.Plan {
			return &kit.Resume{NeedsPrompt: true}, nil
		}
		return nil, refuse("Claude Code goes on from an earlier entry only in print mode, with the branch's first message (--resume-session-at is ignored in its interactive terminal): give grove resume --prompt TEXT, or resume the active leaf and rewind there (Esc twice)")
	}
	if strings.HasPrefix(at.Prompt, "-") {
		return nil, refuse("a prompt that begins with - would be read by claude as a flag")
	}
	return &kit.Resume{
		Argv: []string{"claude", "-p", "--resume", at.SessionID, "--resume-session-at", at.Leaf, "--fork-session", "--session-id", at.NewID, at.Prompt},
		Then: []string{"claude", "--resume", at.NewID},
	}, nil
}
